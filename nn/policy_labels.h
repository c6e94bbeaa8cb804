// Policy labels: a fixed bijection between the geometrically possible moves, seen from the
// side to move, and the integers 0..kNumLabels-1 (torch-free).
//
// A move is written in the mover's view (nn/encoding.h: Black's board is flipped rank
// r -> 9 - r), so one label means the same relative move for both colours. The possible moves
// are the union over piece kinds of their moves on an empty board, from the mover's side:
//   - straight lines (chariot, cannon; covers king and pawn steps): any two squares on one
//     rank or file, 90 * 17 = 1530;
//   - horse jumps: one step plus one diagonal, anywhere on the board (legs ignored), 508;
//   - advisor steps inside the mover's palace, 8, and elephant jumps between the mover's
//     seven elephant points, 16;
// 2062 labels in all.
// Labels are numbered by (from, to) in the mover's view, from-square major, so the order is
// fixed forever; kNumLabels is checked against the table at start-up.
//
// The network's policy head is convolutional: it outputs kPolicyPlanes planes of 90 squares
// (a move "type" per plane, at its from-square), and label_policy_index maps a label to its
// flat index type * 90 + from in that output (nn/network.h gathers the labels from it).
// Move types: 0..7 right 1..8 files, 8..15 left 1..8, 16..24 forward 1..9 ranks, 25..33
// backward 1..9, 34..41 horse jumps, 42..45 advisor steps, 46..49 elephant jumps.
#pragma once

#include <cstdint>

#include "core/position.h"

namespace xq::nn {

constexpr int kNumLabels = 2062;
constexpr int kPolicyPlanes = 50;
constexpr int kNoLabel = -1;

// The label of the move from -> to in the mover's view, or kNoLabel when no piece could ever
// make that move.
int label_of_view(Square from_view, Square to_view);
// The label of `m` (real board squares) played by colour `mover`, or kNoLabel.
int label_of(Move m, Color mover);
// The move (real board squares) that `label` means for `mover`.
Move move_of(int label, Color mover);
// From and to squares of `label` in the mover's view.
Square label_from(int label);
Square label_to(int label);

// The label of the left-right mirrored move (files a <-> i). An involution.
int mirror_label(int label);

// Flat index into the policy head's output (type * 90 + from-square in the mover's view).
int label_policy_index(int label);

// The labels of the legal moves of `pos` (side to move), in generate_legal order, written to
// `out` (room for MAX_MOVES); `moves` (optional, same room) receives the matching moves.
// Returns the count. Every legal move has a label (checked in debug builds and tests).
int legal_labels(const Position& pos, uint16_t* out, Move* moves = nullptr);

}  // namespace xq::nn
