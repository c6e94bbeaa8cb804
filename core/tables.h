// Tables computed once at start-up: piece steps with their blocking squares, attack
// sources, and slider lookups by line occupancy. Everything the move generator and the
// attack queries need to avoid bounds checks and ray walking.
#pragma once

#include <cstdint>

#include "core/types.h"

namespace xq {

// A step that can be blocked: the piece goes to `to` unless `block` is occupied
// (the horse's leg, the elephant's eye). For unblockable steps block == to.
struct BlockedStep {
  uint8_t block;
  uint8_t to;
};

template <typename T, int N>
struct SmallList {
  uint8_t size = 0;
  T items[N];
  const T* begin() const { return items; }
  const T* end() const { return items + size; }
  void push(T v) { items[size++] = v; }
};

// What a slider at index p of a line (a rank of 9 or a file of 10) sees for the
// occupancy bits of that line (p's own bit is ignored).
struct LineView {
  uint16_t empty_reach;         // squares strictly between p and the nearest blockers (chariot quiet moves)
  int8_t first_lo, first_hi;    // nearest occupied index below / above p, -1 if none
  int8_t second_lo, second_hi;  // the next occupied index beyond first (cannon targets), -1 if none
  int8_t third_lo, third_hi;    // the next beyond second (a cannon behind two screens), -1 if none
};

struct Tables {
  SmallList<uint8_t, 4> king_steps[SQUARE_NB];          // within the palace containing the square
  SmallList<uint8_t, 4> advisor_steps[SQUARE_NB];       // within the palace containing the square
  SmallList<BlockedStep, 4> elephant_steps[SQUARE_NB];  // staying on the square's side
  SmallList<BlockedStep, 8> horse_steps[SQUARE_NB];     // block = the leg
  SmallList<uint8_t, 3> pawn_steps[2][SQUARE_NB];       // by colour
  // Attack sources onto a square.
  SmallList<BlockedStep, 8> horse_attackers[SQUARE_NB];  // block = leg, to = horse square
  SmallList<uint8_t, 3> pawn_attackers[2][SQUARE_NB];    // squares a pawn of that colour attacks from
  LineView rank_view[FILE_NB][1 << FILE_NB];             // index along a rank is the file
  LineView file_view[RANK_NB][1 << RANK_NB];             // index along a file is the rank
};

extern const Tables& tables();

// 90-square sets as 128-bit masks.
using SquareMask = unsigned __int128;
inline bool test_bit(SquareMask mask, Square s) { return (mask >> s) & 1; }
inline SquareMask square_bit(Square s) { return SquareMask(1) << s; }

}  // namespace xq
