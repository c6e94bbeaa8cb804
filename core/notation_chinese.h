// Chinese notation (docs/architecture.md §6), UTF-8: 炮二平五, 马8进7, 前车进一, 后炮平四.
//
// Four characters: piece, the file it stands on (numbered from the mover's right), 进
// (forward) / 退 (back) / 平 (sideways), then the points moved along a file (帅/将, 车, 炮,
// 兵/卒) or the destination file (仕/士, 相/象, 马, and every sideways move). Red writes
// numbers with Chinese numerals (一..九), Black with Arabic digits (1..9).
// Two pieces of one kind on one file: 前 (front) / 后 (rear) replace the file and come
// first: 前车进一, 后马退7. Pawns on one file: 前/中/后 for two or three, 一 二 三 四 五
// (counted from the front) for four or five: 前兵进一, 中卒平4, 二兵平四. Tandem pawns on
// two files: the position word then the file, the piece left out: 前三平四, 后7平6
// (also read: 前兵三平四).
//
// Written: the simplified forms 帅 仕 相 马 车 炮 兵 (Red) and 将 士 象 马 车 炮 卒 (Black),
// 进 退 平, 前 中 后. Read as well: traditional forms (帥 將 馬 傌 車 俥 砲 包 進 後), either
// colour's piece characters and numbers, full-width digits (１..９), spaces anywhere.
#pragma once

#include <string>

#include "core/position.h"

namespace xq {

// Writes a legal move of `pos` in Chinese notation (UTF-8).
std::string move_to_chinese(const Position& pos, Move m);

// Reads a Chinese-notation move for the side to move; throws MoveError when the text is not
// valid UTF-8 or malformed, when no legal move fits, or when more than one does.
Move parse_chinese(const Position& pos, const std::string& text);

}  // namespace xq
