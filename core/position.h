// A Xiangqi position: the board, side to move, move counters and an incrementally
// updated Zobrist hash. Moves are made and unmade with a caller-held UndoInfo.
#pragma once

#include <cstdint>
#include <string>

#include "core/types.h"

namespace xq {

// What do_move saves so undo_move can restore the position exactly.
struct UndoInfo {
  Piece captured;
  uint16_t halfmove;
  uint64_t key;
};

class Position {
 public:
  static constexpr const char* kStartFen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

  Position();  // the start position
  struct EmptyBoard {};
  explicit Position(EmptyBoard) { clear(); }

  // Parses a FEN (docs/architecture.md §6); throws FenError with a message naming the problem.
  static Position from_fen(const std::string& fen);
  std::string fen() const;

  Piece piece_on(Square s) const { return board_[s]; }
  bool empty(Square s) const { return board_[s] == NO_PIECE; }
  Color side_to_move() const { return side_; }
  Square king_square(Color c) const { return king_sq_[c]; }
  int halfmove_clock() const { return halfmove_; }  // plies since the last capture
  int fullmove_number() const { return fullmove_; }
  uint64_t key() const { return key_; }
  uint16_t rank_occupancy(int rank) const { return rank_occ_[rank]; }  // bit f = file f occupied
  uint16_t file_occupancy(int file) const { return file_occ_[file]; }  // bit r = rank r occupied
  int piece_count(Color c) const { return count_[c]; }
  Square piece_square(Color c, int i) const { return plist_[c][i]; }  // 0 <= i < piece_count(c)
  int count(Color c, PieceType t) const { return type_count_[make_piece(c, t)]; }

  void do_move(Move m, UndoInfo& undo);
  void undo_move(Move m, const UndoInfo& undo);

  // Attack queries (see attacks.cpp).
  // Is square s attacked by colour `by`: could a piece of `by` capture on s? Counts every
  // piece kind; when s holds the other side's king, the facing king too (flying general).
  bool is_attacked(Square s, Color by) const;
  bool in_check() const { return is_attacked(king_sq_[side_], ~side_); }
  // Squares of the pieces of colour `by` that attack s, counted as is_attacked does.
  int attackers(Square s, Color by, Square* out) const;
  // For every square at once: counts[s] = attackers(s, by, ...), in one pass over `by`'s
  // pieces (cheaper than 90 attackers() calls; the network's attack planes use it).
  void attack_counts(Color by, uint8_t counts[SQUARE_NB]) const;
  int checkers(Square* out) const { return attackers(king_sq_[side_], ~side_, out); }
  // Would `m` (pseudo-legal for the side to move) leave the mover's king attacked?
  bool leaves_king_attacked(Move m) const;

  // A human-readable board diagram (rank 9 at top).
  std::string diagram() const;

  // Low-level editing used by FEN parsing and tests; keeps lists and hash consistent.
  void clear();
  void put_piece(Piece p, Square s);
  void remove_piece(Square s);
  void set_side_to_move(Color c);
  void set_counters(int halfmove, int fullmove) {
    halfmove_ = uint16_t(halfmove);
    fullmove_ = fullmove;
  }

 private:
  void move_piece(Square from, Square to);
  bool king_attacked_by(Square k, Color by) const;

  Piece board_[SQUARE_NB];
  uint16_t rank_occ_[RANK_NB];
  uint16_t file_occ_[FILE_NB];
  uint8_t plist_[2][16];
  uint8_t index_[SQUARE_NB];
  uint8_t count_[2];
  uint8_t type_count_[PIECE_NB];
  Square king_sq_[2];
  Color side_;
  uint16_t halfmove_;
  int fullmove_;
  uint64_t key_;
};

}  // namespace xq
