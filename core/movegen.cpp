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
      default: break;
    }
  }
  return int(out - start);
}

namespace {

// Which of the mover's pseudo-legal moves can expose its own king, when it is not in check.
// Only these are tested by applying them; every other move is legal as generated.
struct Exposure {
  SquareMask test_from = 0;  // pieces whose moves must be tested
  SquareMask test_to = 0;    // squares where landing must be tested
};

// Along one line from the king (direction given by the three nearest occupied squares,
// NO_SQUARE when absent; `between` lists the empty squares up to the first):
//  - our b1 in front of an enemy chariot (or the enemy king, on a file) is pinned;
//  - our b1/b2 in front of an enemy cannon at b3 are its double screen: lifting either one
//    (or b1 capturing b2) leaves a single screen;
//  - an enemy cannon at b1 gets a screen from any piece landing between (and may itself be
//    one of the two screens of a cannon at b3).
inline void scan_line(const Position& pos, Color us, Square b1, Square b2, Square b3, bool file, SquareMask between,
                      Exposure& e) {
  if (b1 == NO_SQUARE) return;
  const Piece p1 = pos.piece_on(b1);
  const Piece them_cannon = make_piece(~us, CANNON);
  if (p1 == them_cannon) e.test_to |= between;
  if (b2 == NO_SQUARE) return;
  const Piece p2 = pos.piece_on(b2);
  const bool b1_ours = color_of(p1) == us;
  if (b1_ours && (p2 == make_piece(~us, CHARIOT) || (file && p2 == make_piece(~us, KING))))
    e.test_from |= square_bit(b1);
  if (b3 != NO_SQUARE && pos.piece_on(b3) == them_cannon) {
    if (b1_ours) e.test_from |= square_bit(b1);
    if (color_of(p2) == us) e.test_from |= square_bit(b2);
  }
}

Exposure find_exposure(const Position& pos, Color us, Square k) {
  const Tables& T = tables();
  Exposure e;
  const int f = file_of(k), r = rank_of(k);
  const LineView& rv = T.rank_view[f][pos.rank_occupancy(r)];
  const LineView& fv = T.file_view[r][pos.file_occupancy(f)];
  auto rsq = [r](int i) { return i < 0 ? NO_SQUARE : r * 9 + i; };
  auto fsq = [f](int i) { return i < 0 ? NO_SQUARE : i * 9 + f; };
  SquareMask lo = 0, hi = 0;
  for (unsigned bits = rv.empty_reach; bits; bits &= bits - 1) {
    const int i = __builtin_ctz(bits);
    (i < f ? lo : hi) |= square_bit(r * 9 + i);
  }
  scan_line(pos, us, rsq(rv.first_lo), rsq(rv.second_lo), rsq(rv.third_lo), false, lo, e);
  scan_line(pos, us, rsq(rv.first_hi), rsq(rv.second_hi), rsq(rv.third_hi), false, hi, e);
  lo = hi = 0;
  for (unsigned bits = fv.empty_reach; bits; bits &= bits - 1) {
    const int i = __builtin_ctz(bits);
    (i < r ? lo : hi) |= square_bit(i * 9 + f);
  }
  scan_line(pos, us, fsq(fv.first_lo), fsq(fv.second_lo), fsq(fv.third_lo), true, lo, e);
  scan_line(pos, us, fsq(fv.first_hi), fsq(fv.second_hi), fsq(fv.third_hi), true, hi, e);
  // A piece of ours on a horse's leg towards the king shields it.
  const Piece them_horse = make_piece(~us, HORSE);
  for (const BlockedStep& st : T.horse_attackers[k])
    if (pos.piece_on(st.to) == them_horse && !pos.empty(st.block) && color_of(pos.piece_on(st.block)) == us)
      e.test_from |= square_bit(st.block);
  return e;
}

}  // namespace

// Legality filter: king moves and every move while in check are tested by applying them;
// otherwise only the moves find_exposure marks.
int generate_legal(const Position& pos, Move* out) {
  const int n = generate_pseudo_legal(pos, out);
  const Color us = pos.side_to_move();
  const Square k = pos.king_square(us);
  int legal = 0;
  if (pos.in_check()) {
    for (int i = 0; i < n; ++i)
      if (!pos.leaves_king_attacked(out[i])) out[legal++] = out[i];
    return legal;
  }
  const Exposure e = find_exposure(pos, us, k);
  const SquareMask test_from = e.test_from | square_bit(k);
  for (int i = 0; i < n; ++i) {
    const Move m = out[i];
    const bool needs_test = test_bit(test_from, m.from()) || test_bit(e.test_to, m.to());
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
