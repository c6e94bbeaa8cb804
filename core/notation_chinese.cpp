// This file is UTF-8.
#include "core/notation_chinese.h"

#include <vector>

#include "core/errors.h"
#include "core/notation_wxf.h"

namespace xq {

namespace {

using notation_detail::Pick;

constexpr const char* kRedPieces[] = {"", "帅", "仕", "相", "马", "车", "炮", "兵"};
constexpr const char* kBlackPieces[] = {"", "将", "士", "象", "马", "车", "炮", "卒"};
constexpr const char* kNumerals[] = {"", "一", "二", "三", "四", "五", "六", "七", "八", "九"};
constexpr const char* kFullWidth[] = {"", "１", "２", "３", "４", "５", "６", "７", "８", "９"};

struct Word {
  const char* text;
  PieceType piece;
};
constexpr Word kPieceWords[] = {
    {"帅", KING},     {"将", KING},   {"帥", KING},   {"將", KING},  {"仕", ADVISOR}, {"士", ADVISOR}, {"相", ELEPHANT},
    {"象", ELEPHANT}, {"马", HORSE},  {"馬", HORSE},  {"傌", HORSE}, {"车", CHARIOT}, {"車", CHARIOT}, {"俥", CHARIOT},
    {"炮", CANNON},   {"砲", CANNON}, {"包", CANNON}, {"兵", PAWN},  {"卒", PAWN},
};

PieceType piece_word(const std::string& ch) {
  for (const Word& w : kPieceWords)
    if (ch == w.text) return w.piece;
  return NO_PIECE_TYPE;
}

// 1..9 for a Chinese numeral, an ASCII or a full-width digit; 0 otherwise.
int number_word(const std::string& ch) {
  for (int i = 1; i <= 9; ++i)
    if (ch == kNumerals[i] || ch == kFullWidth[i] || (ch.size() == 1 && ch[0] == char('0' + i))) return i;
  return 0;
}

// 前 中 后 (and 後); false for anything else.
bool position_word(const std::string& ch, Pick& pick) {
  if (ch == "前")
    pick = Pick::FRONT;
  else if (ch == "中")
    pick = Pick::MIDDLE;
  else if (ch == "后" || ch == "後")
    pick = Pick::REAR;
  else
    return false;
  return true;
}

// +1 进/進, -1 退, 0 平; 2 for anything else.
int direction_word(const std::string& ch) {
  if (ch == "进" || ch == "進") return 1;
  if (ch == "退") return -1;
  if (ch == "平") return 0;
  return 2;
}

std::string number_for(Color c, int n) { return c == RED ? kNumerals[n] : std::string(1, char('0' + n)); }

// Splits UTF-8 text into characters, dropping ASCII white space and the ideographic space.
// Returns false on invalid UTF-8.
bool split_utf8(const std::string& text, std::vector<std::string>& out) {
  for (size_t i = 0; i < text.size();) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    const size_t len = b < 0x80                   ? 1
                       : (b >= 0xC2 && b <= 0xDF) ? 2
                       : (b >= 0xE0 && b <= 0xEF) ? 3
                       : (b >= 0xF0 && b <= 0xF4) ? 4
                                                  : 0;
    if (len == 0 || i + len > text.size()) return false;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    std::string ch = text.substr(i, len);
    i += len;
    if (ch == " " || ch == "\t" || ch == "\r" || ch == "\n" || ch == "\u3000") continue;
    out.push_back(std::move(ch));
  }
  return true;
}

}  // namespace

std::string move_to_chinese(const Position& pos, Move m) {
  const RelativeMove d = describe_move(pos, m);
  const char* piece = (d.color == RED ? kRedPieces : kBlackPieces)[d.type];
  const int n = d.on_file, i = d.index;
  std::string s;
  if (n == 1) {
    s = std::string(piece) + number_for(d.color, d.file);
  } else {
    const char* where = i == 0 ? "前" : i == n - 1 ? "后" : "中";
    if (d.type == PAWN && d.tandem_files >= 2)  // at most three pawns on each of the two files
      s = std::string(where) + number_for(d.color, d.file);
    else if (d.type == PAWN && n >= 4)
      s = std::string(kNumerals[i + 1]) + piece;
    else
      s = std::string(where) + piece;
  }
  s += d.direction > 0 ? "进" : d.direction < 0 ? "退" : "平";
  s += number_for(d.color, d.target);
  return s;
}

Move parse_chinese(const Position& pos, const std::string& text) {
  auto bad = [&](const std::string& why) {
    return MoveError("malformed Chinese move '" + clipped(text) + "': " + why);
  };
  std::vector<std::string> c;
  c.reserve(8);
  if (!split_utf8(text, c)) throw bad("not valid UTF-8");
  if (c.size() != 4 && c.size() != 5)
    throw bad("expected 4 characters such as 炮二平五 or 前车进一, got " + std::to_string(c.size()));

  notation_detail::MoveQuery q;
  Pick pick = Pick::FILE;
  const bool pos0 = position_word(c[0], pick);
  const int ordinal = pos0 ? 0 : number_word(c[0]);
  if (c.size() == 5) {  // 前兵三进一: position word, piece, file
    if (!pos0 && !(ordinal >= 1 && ordinal <= 5)) throw bad("a five-character move starts with 前, 中, 后 or 一..五");
    if (piece_word(c[1]) == NO_PIECE_TYPE) throw bad("'" + c[1] + "' is not a piece");
    if (!number_word(c[2])) throw bad("'" + c[2] + "' is not a file number");
    q.type = piece_word(c[1]);
    q.file = number_word(c[2]);
    q.pick = pos0 ? pick : Pick::ORDINAL;
    q.ordinal = ordinal;
  } else if (piece_word(c[0]) != NO_PIECE_TYPE) {  // 炮二平五
    if (!number_word(c[1])) throw bad("'" + c[1] + "' is not a file number");
    q.type = piece_word(c[0]);
    q.file = number_word(c[1]);
  } else if ((pos0 || (ordinal >= 1 && ordinal <= 5)) && piece_word(c[1]) != NO_PIECE_TYPE) {  // 前车, 二兵
    q.type = piece_word(c[1]);
    q.pick = pos0 ? pick : Pick::ORDINAL;
    q.ordinal = ordinal;
  } else if (pos0 && number_word(c[1])) {  // 前三: tandem pawns on two files
    q.type = PAWN;
    q.pick = pick;
    q.file = number_word(c[1]);
  } else {
    throw bad("cannot read the piece from '" + c[0] + c[1] + "' (a piece and a file, or 前/中/后 and a piece)");
  }
  const size_t k = c.size() - 2;
  q.direction = direction_word(c[k]);
  if (q.direction == 2) throw bad("'" + c[k] + "' is not 进, 退 or 平");
  q.target = number_word(c[k + 1]);
  if (!q.target) throw bad("'" + c[k + 1] + "' is not a number 1..9");
  const bool diagonal = q.type == ADVISOR || q.type == ELEPHANT || q.type == HORSE;
  if (diagonal && q.direction == 0) throw bad(std::string("a ") + piece_type_name(q.type) + " cannot move sideways");
  if (q.pick == Pick::ORDINAL && q.type != PAWN) throw bad("only pawns are counted 一, 二, 三 ... on a file");
  return notation_detail::resolve(pos, q, text, "Chinese");
}

}  // namespace xq
