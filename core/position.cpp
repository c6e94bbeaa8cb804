#include "core/position.h"

#include <cassert>
#include <cstring>
#include <stdexcept>

#include "core/zobrist.h"

namespace xq {

Position::Position() { *this = from_fen(kStartFen); }

void Position::clear() {
  std::memset(board_, 0, sizeof(board_));
  std::memset(rank_occ_, 0, sizeof(rank_occ_));
  std::memset(file_occ_, 0, sizeof(file_occ_));
  std::memset(plist_, 0, sizeof(plist_));
  std::memset(index_, 0, sizeof(index_));
  std::memset(count_, 0, sizeof(count_));
  std::memset(type_count_, 0, sizeof(type_count_));
  king_sq_[RED] = king_sq_[BLACK] = NO_SQUARE;
  side_ = RED;
  halfmove_ = 0;
  fullmove_ = 1;
  key_ = 0;
}

void Position::put_piece(Piece p, Square s) {
  assert(board_[s] == NO_PIECE && p != NO_PIECE);
  const Color c = color_of(p);
  if (count_[c] >= 16) throw std::logic_error("more than 16 pieces of one colour");
  board_[s] = p;
  rank_occ_[rank_of(s)] ^= uint16_t(1 << file_of(s));
  file_occ_[file_of(s)] ^= uint16_t(1 << rank_of(s));
  index_[s] = count_[c];
  plist_[c][count_[c]++] = uint8_t(s);
  ++type_count_[p];
  if (type_of(p) == KING) king_sq_[c] = s;
  key_ ^= zobrist().piece_square[p][s];
}

void Position::remove_piece(Square s) {
  const Piece p = board_[s];
  assert(p != NO_PIECE);
  const Color c = color_of(p);
  board_[s] = NO_PIECE;
  rank_occ_[rank_of(s)] ^= uint16_t(1 << file_of(s));
  file_occ_[file_of(s)] ^= uint16_t(1 << rank_of(s));
  const uint8_t last = plist_[c][--count_[c]];
  plist_[c][index_[s]] = last;
  index_[last] = index_[s];
  --type_count_[p];
  if (type_of(p) == KING) king_sq_[c] = NO_SQUARE;
  key_ ^= zobrist().piece_square[p][s];
}

void Position::move_piece(Square from, Square to) {
  const Piece p = board_[from];
  board_[from] = NO_PIECE;
  board_[to] = p;
  rank_occ_[rank_of(from)] ^= uint16_t(1 << file_of(from));
  file_occ_[file_of(from)] ^= uint16_t(1 << rank_of(from));
  rank_occ_[rank_of(to)] ^= uint16_t(1 << file_of(to));
  file_occ_[file_of(to)] ^= uint16_t(1 << rank_of(to));
  const Color c = color_of(p);
  index_[to] = index_[from];
  plist_[c][index_[to]] = uint8_t(to);
  if (type_of(p) == KING) king_sq_[c] = to;
  const auto& z = zobrist().piece_square[p];
  key_ ^= z[from] ^ z[to];
}

void Position::set_side_to_move(Color c) {
  if (c != side_) key_ ^= zobrist().black_to_move;
  side_ = c;
}

void Position::do_move(Move m, UndoInfo& undo) {
  const Square from = m.from(), to = m.to();
  undo.captured = board_[to];
  undo.halfmove = halfmove_;
  undo.key = key_;
  if (undo.captured != NO_PIECE) {
    remove_piece(to);
    halfmove_ = 0;
  } else {
    ++halfmove_;
  }
  move_piece(from, to);
  if (side_ == BLACK) ++fullmove_;
  side_ = ~side_;
  key_ ^= zobrist().black_to_move;
}

void Position::undo_move(Move m, const UndoInfo& undo) {
  const Square from = m.from(), to = m.to();
  side_ = ~side_;
  if (side_ == BLACK) --fullmove_;
  move_piece(to, from);
  if (undo.captured != NO_PIECE) put_piece(undo.captured, to);
  halfmove_ = undo.halfmove;
  key_ = undo.key;
}

std::string Position::diagram() const {
  std::string out;
  for (int r = 9; r >= 0; --r) {
    out += char('0' + r);
    out += ' ';
    for (int f = 0; f < 9; ++f) {
      out += piece_to_char(board_[make_square(f, r)]);
      out += f < 8 ? " " : "\n";
    }
  }
  out += "  a b c d e f g h i\n";
  return out;
}

}  // namespace xq
