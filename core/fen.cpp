// FEN reading and writing in the form Pikafish uses:
//   rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1
// Ranks are listed from 9 down to 0. The short form "<board> <side>" is accepted too.
#include <sstream>
#include <vector>

#include "core/errors.h"
#include "core/position.h"
#include "util/text.h"

namespace xq {

namespace {

[[noreturn]] void fail(const std::string& fen, const std::string& why) {
  throw FenError("bad FEN '" + clipped(fen) + "': " + why);
}

bool parse_count(const std::string& s, int& value) {
  if (s.empty() || s.size() > 6) return false;
  value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

// Where a piece may stand at all (docs/architecture.md §5): palace pieces in the palace, elephants on
// their seven points, pawns never behind their start.
std::string impossible_square(Piece p, Square s) {
  const Color c = color_of(p);
  const int rr = relative_rank(c, s), f = file_of(s);
  switch (type_of(p)) {
    case KING:
      if (!in_palace(c, s)) return "outside its palace";
      break;
    case ADVISOR:
      if (!in_palace(c, s) || (rr + f) % 2 != 1) return "not on one of its five palace points";
      break;
    case ELEPHANT: {
      const bool ok = (rr == 0 || rr == 4) ? (f == 2 || f == 6) : rr == 2 ? (f == 0 || f == 4 || f == 8) : false;
      if (!ok) return "not on one of its seven points on its own side";
      break;
    }
    case PAWN:
      if (rr < 3) return "behind its starting rank";
      if (rr < 5 && f % 2 == 1) return "on a file it cannot reach before crossing the river";
      break;
    default: break;
  }
  return "";
}

}  // namespace

Position Position::from_fen(const std::string& fen) {
  const std::vector<std::string> fields = split_words(fen);
  if (fields.empty()) fail(fen, "empty string");
  if (fields.size() == 1) fail(fen, "missing side to move (expected 'w' or 'b' after the board)");
  if (fields.size() > 6) fail(fen, "too many fields (expected at most 6)");

  // First the board's shape (ranks and widths), then where each piece stands, so that a
  // missing rank is reported as such and not as a piece on a wrong square.
  const std::string& board = fields[0];
  Piece grid[SQUARE_NB] = {};
  int rank = 9, file = 0;
  for (size_t i = 0; i <= board.size(); ++i) {
    const char c = i < board.size() ? board[i] : '/';
    if (c == '/') {
      if (file != 9) fail(fen, "rank " + std::to_string(rank) + " has width " + std::to_string(file) + ", expected 9");
      if (i == board.size()) break;
      if (--rank < 0) fail(fen, "more than 10 ranks");
      file = 0;
    } else if (c >= '1' && c <= '9') {
      file += c - '0';
      if (file > 9) fail(fen, "rank " + std::to_string(rank) + " is wider than 9 files");
    } else {
      const Piece p = piece_from_char(c);
      if (p == NO_PIECE) fail(fen, std::string("bad piece letter '") + c + "'");
      if (file >= 9) fail(fen, "rank " + std::to_string(rank) + " is wider than 9 files");
      grid[make_square(file, rank)] = p;
      ++file;
    }
  }
  if (rank != 0) fail(fen, "only " + std::to_string(10 - rank) + " ranks, expected 10");

  Position pos{EmptyBoard{}};
  int type_totals[PIECE_NB] = {};
  static const int kMaxOfType[PIECE_TYPE_NB] = {0, 1, 2, 2, 2, 2, 2, 5};
  for (int r = 9; r >= 0; --r) {
    for (int f = 0; f < 9; ++f) {
      const Square s = make_square(f, r);
      const Piece p = grid[s];
      if (p == NO_PIECE) continue;
      const std::string what = std::string(color_name(color_of(p))) + " " + piece_type_name(type_of(p));
      const std::string why = impossible_square(p, s);
      if (!why.empty()) fail(fen, what + " on " + square_name(s) + " is " + why);
      if (++type_totals[p] > kMaxOfType[type_of(p)])
        fail(fen, "too many " + what + "s (at most " + std::to_string(kMaxOfType[type_of(p)]) + ")");
      pos.put_piece(p, s);
    }
  }
  for (Color c : {RED, BLACK})
    if (pos.king_square(c) == NO_SQUARE) fail(fen, std::string("missing ") + color_name(c) + " king");

  const std::string& side = fields[1];
  if (side == "w" || side == "r")
    pos.set_side_to_move(RED);
  else if (side == "b")
    pos.set_side_to_move(BLACK);
  else
    fail(fen, "bad side to move '" + clipped(side) + "' (expected 'w' or 'b')");
  for (size_t i = 2; i < fields.size() && i < 4; ++i)
    if (fields[i] != "-")
      fail(fen, "field " + std::to_string(i + 1) + " must be '-', got '" + clipped(fields[i]) + "'");
  int halfmove = 0, fullmove = 1;
  if (fields.size() > 4 && !parse_count(fields[4], halfmove))
    fail(fen, "bad halfmove clock '" + clipped(fields[4]) + "'");
  if (fields.size() > 5 && (!parse_count(fields[5], fullmove) || fullmove < 1))
    fail(fen, "bad fullmove number '" + clipped(fields[5]) + "'");
  pos.set_counters(halfmove, fullmove);

  const Square rk = pos.king_square(RED), bk = pos.king_square(BLACK);
  if (file_of(rk) == file_of(bk)) {
    bool blocked = false;
    for (Square s = rk + 9; s < bk; s += 9) blocked |= !pos.empty(s);
    if (!blocked) fail(fen, "the kings face each other on file " + std::string(1, char('a' + file_of(rk))));
  }
  if (pos.is_attacked(pos.king_square(~pos.side_to_move()), pos.side_to_move()))
    fail(fen, std::string("the side not to move (") + color_name(~pos.side_to_move()) + ") is in check");
  return pos;
}

std::string Position::fen() const {
  std::string out;
  for (int r = 9; r >= 0; --r) {
    int gap = 0;
    for (int f = 0; f < 9; ++f) {
      const Piece p = board_[make_square(f, r)];
      if (p == NO_PIECE) {
        ++gap;
        continue;
      }
      if (gap) out += char('0' + gap);
      gap = 0;
      out += piece_to_char(p);
    }
    if (gap) out += char('0' + gap);
    if (r) out += '/';
  }
  out += side_ == RED ? " w - - " : " b - - ";
  out += std::to_string(halfmove_) + " " + std::to_string(fullmove_);
  return out;
}

}  // namespace xq
