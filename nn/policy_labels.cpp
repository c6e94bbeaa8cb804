#include "nn/policy_labels.h"

#include <cassert>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "core/movegen.h"
#include "nn/encoding.h"

namespace xq::nn {

namespace {

bool is_elephant_point(Square s) {
  static const Square points[] = {make_square(2, 0), make_square(6, 0), make_square(0, 2), make_square(4, 2),
                                  make_square(8, 2), make_square(2, 4), make_square(6, 4)};
  for (Square p : points)
    if (p == s) return true;
  return false;
}

// The five points an own advisor can stand on (d0, f0, e1, d2, f2).
bool is_advisor_point(Square s) {
  const int f = file_of(s), r = rank_of(s);
  return r <= 2 && f >= 3 && f <= 5 && (f == 4) == (r == 1);
}

// The move type (policy plane) of a from -> to step, or -1 when no piece makes it.
int move_type(Square from, Square to) {
  if (from == to) return -1;
  const int df = file_of(to) - file_of(from), dr = rank_of(to) - rank_of(from);
  if (dr == 0) return df > 0 ? df - 1 : 8 + (-df - 1);
  if (df == 0) return dr > 0 ? 16 + dr - 1 : 25 + (-dr - 1);
  const int af = std::abs(df), ar = std::abs(dr);
  if ((af == 1 && ar == 2) || (af == 2 && ar == 1)) {
    // 8 horse jumps: index by (sign df, sign dr, which axis is long)
    return 34 + (df > 0 ? 0 : 1) + (dr > 0 ? 0 : 2) + (ar == 2 ? 0 : 4);
  }
  const int diag = (df > 0 ? 0 : 1) + (dr > 0 ? 0 : 2);
  if (af == 1 && ar == 1) return is_advisor_point(from) && is_advisor_point(to) ? 42 + diag : -1;
  if (af == 2 && ar == 2) return is_elephant_point(from) && is_elephant_point(to) ? 46 + diag : -1;
  return -1;
}

struct Tables {
  int16_t label[SQUARE_NB][SQUARE_NB];
  uint8_t from[kNumLabels];
  uint8_t to[kNumLabels];
  uint16_t mirror[kNumLabels];
  uint16_t policy_index[kNumLabels];

  Tables() {
    int n = 0;
    for (Square f = 0; f < SQUARE_NB; ++f)
      for (Square t = 0; t < SQUARE_NB; ++t) {
        const int type = move_type(f, t);
        label[f][t] = int16_t(type < 0 || n >= kNumLabels ? kNoLabel : n);
        if (type < 0) continue;
        if (n >= kNumLabels) {
          ++n;  // counted for the error below
          continue;
        }
        from[n] = uint8_t(f);
        to[n] = uint8_t(t);
        policy_index[n] = uint16_t(type * SQUARE_NB + f);
        ++n;
      }
    if (n != kNumLabels)
      throw std::logic_error("policy label table has " + std::to_string(n) + " labels, kNumLabels says " +
                             std::to_string(kNumLabels));
    for (int l = 0; l < kNumLabels; ++l) {
      const int m = label[mirror_square(from[l])][mirror_square(to[l])];
      if (m < 0) throw std::logic_error("policy labels are not closed under mirroring");
      mirror[l] = uint16_t(m);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

int label_of_view(Square from_view, Square to_view) {
  if (from_view < 0 || from_view >= SQUARE_NB || to_view < 0 || to_view >= SQUARE_NB) return kNoLabel;
  return tables().label[from_view][to_view];
}

int label_of(Move m, Color mover) { return label_of_view(view_square(mover, m.from()), view_square(mover, m.to())); }

Move move_of(int label, Color mover) {
  const Tables& t = tables();
  return Move(view_square(mover, t.from[label]), view_square(mover, t.to[label]));
}

Square label_from(int label) { return tables().from[label]; }
Square label_to(int label) { return tables().to[label]; }
int mirror_label(int label) { return tables().mirror[label]; }
int label_policy_index(int label) { return tables().policy_index[label]; }

int legal_labels(const Position& pos, uint16_t* out, Move* moves) {
  Move buf[MAX_MOVES];
  Move* ms = moves ? moves : buf;
  const int n = generate_legal(pos, ms);
  const Color us = pos.side_to_move();
  for (int i = 0; i < n; ++i) {
    const int l = label_of(ms[i], us);
    assert(l != kNoLabel);
    out[i] = uint16_t(l);
  }
  return n;
}

}  // namespace xq::nn
