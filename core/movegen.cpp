#include "core/movegen.h"

#include "core/tables.h"

namespace xq {

namespace {

inline bool own(Piece p, Color us) { return p != NO_PIECE && color_of(p) == us; }
inline bool enemy(Piece p, Color us) { return p != NO_PIECE && color_of(p) != us; }

inline Move* emit_bits(Move* out, Square from, unsigned bits, int base, int stride) {
  while (bits) {
    const int i = __builtin_ctz(bits);
    bits &= bits - 1;
    *out++ = Move(from, base + i * stride);
  }
  return out;
}

}  // namespace

int generate_pseudo_legal(const Position& pos, Move* const start) {
  const Tables& T = tables();
  const Color us = pos.side_to_move();
  Move* out = start;
  for (int i = 0, n = pos.piece_count(us); i < n; ++i) {
    const Square s = pos.piece_square(us, i);
    switch (type_of(pos.piece_on(s))) {
      case KING:
        for (uint8_t t : T.king_steps[s])
          if (!own(pos.piece_on(t), us)) *out++ = Move(s, t);
        break;
      case ADVISOR:
        for (uint8_t t : T.advisor_steps[s])
          if (!own(pos.piece_on(t), us)) *out++ = Move(s, t);
        break;
      case ELEPHANT:
        for (const BlockedStep& st : T.elephant_steps[s])
          if (pos.empty(st.block) && !own(pos.piece_on(st.to), us)) *out++ = Move(s, st.to);
        break;
      case HORSE:
        for (const BlockedStep& st : T.horse_steps[s])
          if (pos.empty(st.block) && !own(pos.piece_on(st.to), us)) *out++ = Move(s, st.to);
        break;
      case PAWN:
        for (uint8_t t : T.pawn_steps[us][s])
          if (!own(pos.piece_on(t), us)) *out++ = Move(s, t);
        break;
      case CHARIOT:
      case CANNON: {
        const bool chariot = type_of(pos.piece_on(s)) == CHARIOT;
        const int f = file_of(s), r = rank_of(s);
        const LineView& rv = T.rank_view[f][pos.rank_occupancy(r)];
        const LineView& fv = T.file_view[r][pos.file_occupancy(f)];
        out = emit_bits(out, s, rv.empty_reach, r * 9, 1);
        out = emit_bits(out, s, fv.empty_reach, f, 9);
        const int rt[2] = {chariot ? rv.first_lo : rv.second_lo, chariot ? rv.first_hi : rv.second_hi};
        const int ft[2] = {chariot ? fv.first_lo : fv.second_lo, chariot ? fv.first_hi : fv.second_hi};
        for (int t : rt)
          if (t >= 0 && enemy(pos.piece_on(r * 9 + t), us)) *out++ = Move(s, r * 9 + t);
        for (int t : ft)
          if (t >= 0 && enemy(pos.piece_on(t * 9 + f), us)) *out++ = Move(s, t * 9 + f);
        break;
      }
      default:
        break;
    }
  }
  return int(out - start);
}

// Legality filter. When the side to move is not in check, a move of any piece but the
// king can only expose its own king if it leaves or enters the king's file or rank (a
// line piece's ray, a cannon's screen, the facing kings) or leaves one of the king's
// diagonal neighbours (a horse's leg). Only those moves, king moves, and every move while
// in check are tested by applying them.
int generate_legal(const Position& pos, Move* out) {
  const int n = generate_pseudo_legal(pos, out);
  const Color us = pos.side_to_move();
  const Square k = pos.king_square(us);
  const bool check = pos.in_check();
  const unsigned __int128 sensitive = tables().king_sensitive[k];
  int legal = 0;
  for (int i = 0; i < n; ++i) {
    const Move m = out[i];
    const bool needs_test =
        check || m.from() == k || test_bit(sensitive, m.from()) || test_bit(sensitive, m.to());
    if (!needs_test || !pos.leaves_king_attacked(m)) out[legal++] = m;
  }
  return legal;
}

bool is_legal(const Position& pos, Move m) {
  Move moves[MAX_MOVES];
  const int n = generate_legal(pos, moves);
  for (int i = 0; i < n; ++i)
    if (moves[i] == m) return true;
  return false;
}

}  // namespace xq
