#include "core/types.h"

namespace xq {

namespace {
constexpr const char* kPieceLetters = " KABNRCP";
}

char piece_to_char(Piece p) {
  if (p == NO_PIECE) return '.';
  char c = kPieceLetters[type_of(p)];
  return color_of(p) == RED ? c : char(c - 'A' + 'a');
}

Piece piece_from_char(char c) {
  Color color = (c >= 'a' && c <= 'z') ? BLACK : RED;
  char u = (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
  switch (u) {
    case 'K': return make_piece(color, KING);
    case 'A': return make_piece(color, ADVISOR);
    case 'B':
    case 'E': return make_piece(color, ELEPHANT);
    case 'N':
    case 'H': return make_piece(color, HORSE);
    case 'R': return make_piece(color, CHARIOT);
    case 'C': return make_piece(color, CANNON);
    case 'P': return make_piece(color, PAWN);
    default: return NO_PIECE;
  }
}

const char* piece_type_name(PieceType t) {
  static const char* names[] = {"none", "king", "advisor", "elephant", "horse", "chariot", "cannon", "pawn"};
  return names[t & 7];
}

const char* color_name(Color c) { return c == RED ? "red" : "black"; }

std::string square_name(Square s) {
  std::string r(2, ' ');
  r[0] = char('a' + file_of(s));
  r[1] = char('0' + rank_of(s));
  return r;
}

std::string move_to_iccs(Move m) {
  if (m.is_none()) return "0000";
  return square_name(m.from()) + square_name(m.to());
}

}  // namespace xq
