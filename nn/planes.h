// The compact batch layout that crosses to the device, and the input planes the network
// builds from it there (torch-free declarations; the expansion is in network.cpp).
//
// Per position, compact_width(layout) bytes:
//   [0, 90)                 current position's square codes (nn/encoding.h)
//   [90 k, 90 (k+1))        k-th earlier position (k = 1..history), zeros when absent
//   [90 (history+1)]        repetition count
//   [90 (history+1) + 1]    halfmove clock
//   then, with attacks,     90 bytes of the current board's attack map (nn/attack_map.h)
// The first 92 bytes of a position without history are its Encoding as it is.
// Input planes (10 x 9 each), input_planes(layout) = 14 (history + 1) + 4 (+ 4) of them:
//   for each board (current first): 7 own piece types, then 7 opponent piece types (1/0);
//   repetition >= 1; repetition >= 2; halfmove clock / 120 (the natural limit); all ones
//   (lets convolutions see the board edge);
//   with attacks: own attackers >= 1, own attackers >= 2, opponent attackers >= 1,
//   opponent attackers >= 2.
#pragma once

#include <cstdint>

#include "nn/evaluator.h"

namespace xq::nn {

constexpr int kPlanesPerBoard = 14;
constexpr int kScalarPlanes = 4;
constexpr int kAttackPlanes = 4;
constexpr int kHalfmoveScale = 120;

// What the planes hold besides the current board (from the network's config: plane_layout
// in nn/net_config.h).
struct PlaneLayout {
  int history = 0;       // earlier boards
  bool attacks = false;  // the attack map of the current board
};

// Where the attack map starts in a position's compact bytes: after the boards and scalars.
constexpr int attack_offset(PlaneLayout l) { return SQUARE_NB * (l.history + 1) + 2; }
constexpr int compact_width(PlaneLayout l) { return attack_offset(l) + (l.attacks ? SQUARE_NB : 0); }
constexpr int input_planes(PlaneLayout l) {
  return kPlanesPerBoard * (l.history + 1) + kScalarPlanes + (l.attacks ? kAttackPlanes : 0);
}

// Writes one request's compact bytes (compact_width(layout) of them) to `dst`. History
// boards beyond request.n_history are zero; extra ones in the request are ignored.
void write_compact(const EvalRequest& request, PlaneLayout layout, uint8_t* dst);

}  // namespace xq::nn
