// Basic value types of the rules core: colours, pieces, squares and moves.
//
// Squares are numbered rank * 9 + file, with files a..i (0..8) from Red's left
// and ranks 0..9 from Red's side, so a0 = 0 and i9 = 89.
#pragma once

#include <cstdint>
#include <string>

namespace xq {

enum Color : uint8_t { RED = 0, BLACK = 1 };
constexpr Color operator~(Color c) { return Color(c ^ 1); }

enum PieceType : uint8_t {
  NO_PIECE_TYPE = 0,
  KING = 1,
  ADVISOR = 2,
  ELEPHANT = 3,
  HORSE = 4,
  CHARIOT = 5,
  CANNON = 6,
  PAWN = 7,
};
constexpr int PIECE_TYPE_NB = 8;

// A piece is its type in the low three bits and its colour in bit 3; 0 is an empty square.
enum Piece : uint8_t { NO_PIECE = 0 };
constexpr int PIECE_NB = 16;
constexpr Piece make_piece(Color c, PieceType t) { return Piece((c << 3) | t); }
constexpr PieceType type_of(Piece p) { return PieceType(p & 7); }
constexpr Color color_of(Piece p) { return Color(p >> 3); }

using Square = int;  // 0..89
constexpr int FILE_NB = 9;
constexpr int RANK_NB = 10;
constexpr int SQUARE_NB = 90;
constexpr Square NO_SQUARE = -1;

constexpr int file_of(Square s) { return s % 9; }
constexpr int rank_of(Square s) { return s / 9; }
constexpr Square make_square(int file, int rank) { return rank * 9 + file; }
constexpr bool on_board(int file, int rank) { return file >= 0 && file < FILE_NB && rank >= 0 && rank < RANK_NB; }
// The rank as seen from colour c's own side (0 = c's back rank).
constexpr int relative_rank(Color c, Square s) { return c == RED ? rank_of(s) : 9 - rank_of(s); }
constexpr bool in_palace(Color c, Square s) { return file_of(s) >= 3 && file_of(s) <= 5 && relative_rank(c, s) <= 2; }
// True when s is on colour c's own side of the river.
constexpr bool own_half(Color c, Square s) { return relative_rank(c, s) <= 4; }

// A move packs from-square (7 bits) and to-square (7 bits). 0 is "no move" (a0a0 is never legal).
class Move {
 public:
  constexpr Move() : data_(0) {}
  constexpr Move(Square from, Square to) : data_(uint16_t(from | (to << 7))) {}
  constexpr Square from() const { return data_ & 0x7F; }
  constexpr Square to() const { return data_ >> 7; }
  constexpr uint16_t raw() const { return data_; }
  static constexpr Move from_raw(uint16_t r) {
    Move m;
    m.data_ = r;
    return m;
  }
  constexpr bool is_none() const { return data_ == 0; }
  constexpr bool operator==(Move o) const { return data_ == o.data_; }
  constexpr bool operator!=(Move o) const { return data_ != o.data_; }

 private:
  uint16_t data_;
};

constexpr int MAX_MOVES = 256;

// Names used in messages and notations.
char piece_to_char(Piece p);               // 'K', 'a', ... ; '.' for empty
Piece piece_from_char(char c);             // NO_PIECE when c is not a piece letter
const char* piece_type_name(PieceType t);  // "king", "advisor", ...
const char* color_name(Color c);           // "red", "black"
std::string square_name(Square s);         // "e0"
std::string move_to_iccs(Move m);          // "h2e2"

}  // namespace xq
