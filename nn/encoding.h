// The compact per-position encoding the network reads (torch-free).
//
// An Encoding is 92 bytes: 90 square codes plus the repetition count and the halfmove clock.
// It is always written from the point of view of one colour, the "perspective" (the side to
// move for the current position): for Black the board is flipped, rank r -> 9 - r (files
// stay), and colours swap, so the perspective's pieces are always "own" and start at the
// bottom. A Black position therefore encodes exactly like the colour-flipped Red position.
//
// Square codes: 0 empty, 1..7 own piece of type 1..7 (KING..PAWN), 8..14 opponent piece of
// type 1..7 (code = 7 + type). The square index is the perspective's view: view_square(c, s).
//
// Expansion to input planes happens on the device the net runs on (nn/planes.h), so a batch
// crosses to a GPU as these bytes. Earlier positions (history) are extra Encodings of the
// earlier boards written from the *current* mover's perspective; only their squares are used.
#pragma once

#include <cstdint>

#include "core/position.h"

namespace xq::nn {

constexpr int kOwnCodeBase = 0;  // own piece code = type (1..7)
constexpr int kOppCodeBase = 7;  // opponent piece code = 7 + type (8..14)
constexpr int kNumSquareCodes = 15;
constexpr int kMaxRepetition = 2;  // repetition counts above this are clamped
constexpr int kMaxHalfmove = 255;  // halfmove clocks above this are clamped

struct Encoding {
  uint8_t squares[SQUARE_NB];  // square codes in the perspective's view
  uint8_t repetition;          // earlier occurrences of this position, 0..kMaxRepetition
  uint8_t halfmove;            // plies since the last capture, clamped to kMaxHalfmove

  bool operator==(const Encoding& o) const;
  bool operator!=(const Encoding& o) const { return !(*this == o); }
};
static_assert(sizeof(Encoding) == 92, "Encoding must stay compact and padding-free");

// The square `s` as colour `c` sees it (an involution: flips ranks for Black).
constexpr Square view_square(Color c, Square s) { return c == RED ? s : make_square(file_of(s), 9 - rank_of(s)); }
// Left-right mirror, files a <-> i.
constexpr Square mirror_square(Square s) { return make_square(8 - file_of(s), rank_of(s)); }

// Encodes `pos` from `perspective`'s point of view. `repetition` (earlier occurrences of the
// position, as the caller's game history knows them) is clamped to 0..kMaxRepetition.
Encoding encode(const Position& pos, Color perspective, int repetition = 0);
// The usual case: from the side to move's view.
inline Encoding encode(const Position& pos, int repetition = 0) { return encode(pos, pos.side_to_move(), repetition); }

// The left-right mirror image (files a <-> i) of an encoding; scalars unchanged.
Encoding mirror(const Encoding& e);

// The key a cache uses for a position's evaluation: the Zobrist key combined with everything
// else the encoding carries (repetition count, halfmove clock) and the history keys (most
// recent first, `n_history` of them; pass what the network's history setting uses).
uint64_t eval_key(const Position& pos, int repetition, const uint64_t* history_keys = nullptr, int n_history = 0);

}  // namespace xq::nn
