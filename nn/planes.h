// The compact batch layout that crosses to the device, and the input planes the network
// builds from it there (torch-free declarations; the expansion is in network.cpp).
//
// Per position, compact_width(history) bytes:
//   [0, 90)                 current position's square codes (nn/encoding.h)
//   [90 k, 90 (k+1))        k-th earlier position (k = 1..history), zeros when absent
//   [90 (history+1)]        repetition count
//   [90 (history+1) + 1]    halfmove clock
// Input planes (10 x 9 each), input_planes(history) = 14 (history + 1) + 4 of them:
//   for each board (current first): 7 own piece types, then 7 opponent piece types (1/0);
//   repetition >= 1; repetition >= 2; halfmove clock / 120 (the natural limit); all ones
//   (lets convolutions see the board edge).
#pragma once

#include <cstdint>

#include "nn/evaluator.h"

namespace xq::nn {

constexpr int kPlanesPerBoard = 14;
constexpr int kScalarPlanes = 4;
constexpr int kHalfmoveScale = 120;

constexpr int compact_width(int history) { return SQUARE_NB * (history + 1) + 2; }
constexpr int input_planes(int history) { return kPlanesPerBoard * (history + 1) + kScalarPlanes; }

// Writes one request's compact bytes (compact_width(history) of them) to `dst`. History
// boards beyond request.n_history are zero; extra ones in the request are ignored.
void write_compact(const EvalRequest& request, int history, uint8_t* dst);

}  // namespace xq::nn
