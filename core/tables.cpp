#include "core/tables.h"

namespace xq {

namespace {

void build_line(LineView* view, int length) {
  for (int p = 0; p < length; ++p) {
    for (int occ = 0; occ < (1 << length); ++occ) {
      LineView& v = view[p * (1 << length) + occ];
      v = LineView{0, -1, -1, -1, -1, -1, -1};
      int8_t* lo[3] = {&v.first_lo, &v.second_lo, &v.third_lo};
      int8_t* hi[3] = {&v.first_hi, &v.second_hi, &v.third_hi};
      int found = 0;
      for (int i = p - 1; i >= 0 && found < 3; --i) {
        if (occ & (1 << i))
          *lo[found++] = int8_t(i);
        else if (found == 0)
          v.empty_reach |= uint16_t(1 << i);
      }
      found = 0;
      for (int i = p + 1; i < length && found < 3; ++i) {
        if (occ & (1 << i))
          *hi[found++] = int8_t(i);
        else if (found == 0)
          v.empty_reach |= uint16_t(1 << i);
      }
    }
  }
}

bool same_palace(Square a, Square b) {
  return (in_palace(RED, a) && in_palace(RED, b)) || (in_palace(BLACK, a) && in_palace(BLACK, b));
}

Tables* build() {
  auto* t = new Tables();
  for (Square s = 0; s < SQUARE_NB; ++s) {
    const int f = file_of(s), r = rank_of(s);
    // King and advisor steps.
    static const int orth[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    static const int diag[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    for (auto& d : orth) {
      int nf = f + d[0], nr = r + d[1];
      if (on_board(nf, nr) && same_palace(s, make_square(nf, nr))) t->king_steps[s].push(uint8_t(make_square(nf, nr)));
    }
    for (auto& d : diag) {
      int nf = f + d[0], nr = r + d[1];
      if (on_board(nf, nr) && same_palace(s, make_square(nf, nr)))
        t->advisor_steps[s].push(uint8_t(make_square(nf, nr)));
      // Elephant: two diagonal steps, eye in between, never across the river.
      int ef = f + 2 * d[0], er = r + 2 * d[1];
      if (on_board(ef, er) && (r <= 4) == (er <= 4))
        t->elephant_steps[s].push({uint8_t(make_square(f + d[0], r + d[1])), uint8_t(make_square(ef, er))});
    }
    // Horse: one orthogonal step (the leg) then one diagonal step outward.
    for (auto& d : orth) {
      int lf = f + d[0], lr = r + d[1];
      if (!on_board(lf, lr)) continue;
      for (int side = -1; side <= 1; side += 2) {
        int tf = lf + d[0] + (d[0] == 0 ? side : 0);
        int tr = lr + d[1] + (d[1] == 0 ? side : 0);
        if (on_board(tf, tr)) t->horse_steps[s].push({uint8_t(make_square(lf, lr)), uint8_t(make_square(tf, tr))});
      }
    }
    // Horses attacking s: a horse at h reaches s through its leg, which is s's diagonal
    // neighbour in the direction of h.
    for (auto& d : diag) {
      int lf = f + d[0], lr = r + d[1];
      if (!on_board(lf, lr)) continue;
      int cand[2][2] = {{f + 2 * d[0], r + d[1]}, {f + d[0], r + 2 * d[1]}};
      for (auto& c : cand)
        if (on_board(c[0], c[1]))
          t->horse_attackers[s].push({uint8_t(make_square(lf, lr)), uint8_t(make_square(c[0], c[1]))});
    }
    // Pawns.
    for (int c = 0; c < 2; ++c) {
      const Color color = Color(c);
      const int fwd = color == RED ? 1 : -1;
      if (on_board(f, r + fwd)) t->pawn_steps[c][s].push(uint8_t(make_square(f, r + fwd)));
      if (!own_half(color, s)) {
        if (f > 0) t->pawn_steps[c][s].push(uint8_t(make_square(f - 1, r)));
        if (f < 8) t->pawn_steps[c][s].push(uint8_t(make_square(f + 1, r)));
      }
    }
  }
  // Pawn attackers are the inverse of pawn steps.
  for (int c = 0; c < 2; ++c)
    for (Square from = 0; from < SQUARE_NB; ++from)
      for (uint8_t to : t->pawn_steps[c][from]) t->pawn_attackers[c][to].push(uint8_t(from));
  build_line(&t->rank_view[0][0], FILE_NB);
  build_line(&t->file_view[0][0], RANK_NB);
  return t;
}

}  // namespace

const Tables& tables() {
  static const Tables* t = build();
  return *t;
}

}  // namespace xq
