// The attack map of an encoded board: for every square, how many pieces of each side attack
// it (torch-free). It feeds the network's optional attack planes (network.attack_planes,
// nn/planes.h), a game-specific input feature in the spirit of KataGo's liberty and ladder
// planes: a small net sees at once which pieces hang, which are defended and where the king
// is watched, instead of having to learn every piece's lines of attack from results.
//
// "Attacks" is Position::attackers's meaning (core/attacks.cpp): a piece attacks a square it
// could capture on if an enemy piece stood there (cannons over exactly one screen, horses and
// elephants with a free leg or eye, pawns forward and, across the river, sideways), whoever
// stands there now, so a defended own piece counts its defenders.
#pragma once

#include <cstdint>

#include "core/types.h"

namespace xq::nn {

constexpr int kMaxAttackCount = 3;  // counts are clamped to this

// `squares` holds encoding square codes (nn/encoding.h): own pieces 1..7, opponent 8..14, in
// the own side's view (own pieces start at the bottom). Writes
// out[s] = min(own attackers of s, 3) | min(opponent attackers of s, 3) << 2.
void attack_map(const uint8_t squares[SQUARE_NB], uint8_t out[SQUARE_NB]);

}  // namespace xq::nn
