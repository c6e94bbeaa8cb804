#include "core/repetition.h"

namespace xq {

namespace {

constexpr SquareSet bit(Square s) { return SquareSet(1) << s; }

// Does the piece of colour `by` on `a` attack `s` in `pos` by its movement rule alone (legal
// or not)? Used for "was this attack already there": an attack that only became legal, say
// because the king stepped out of check, is not a new one.
bool attacks(const Position& pos, Square a, Square s, Color by) {
  Square att[32];
  const int n = pos.attackers(s, by, att);
  for (int i = 0; i < n; ++i)
    if (att[i] == a) return true;
  return false;
}

// After the piece on `a` takes the enemy piece on `s` in `pos`, can the owner of the
// captured piece legally take back on `s`?
bool defended_against(const Position& pos, Square a, Square s) {
  const Color attacker = color_of(pos.piece_on(a));
  Position q = pos;
  q.set_side_to_move(attacker);
  UndoInfo undo;
  q.do_move(Move(a, s), undo);
  Square def[32];
  const int n = q.attackers(s, ~attacker, def);
  for (int i = 0; i < n; ++i)
    if (!q.leaves_king_attacked(Move(def[i], s))) return true;
  return false;
}

}  // namespace

SquareSet chase_targets(const Position& before, Move m) {
  const Color us = before.side_to_move(), them = ~us;
  Position after = before;
  UndoInfo undo;
  after.do_move(m, undo);
  SquareSet result = 0;
  for (int i = 0, n = after.piece_count(them); i < n; ++i) {
    const Square s = after.piece_square(them, i);
    const PieceType target = type_of(after.piece_on(s));
    if (target == KING || (target == PAWN && own_half(them, s))) continue;
    Square att[32];
    const int k = after.attackers(s, us, att);
    for (int j = 0; j < k; ++j) {
      const Square a = att[j];
      const PieceType by = type_of(after.piece_on(a));
      if (by == KING || by == PAWN) continue;                // kings and pawns chasing count as idle
      if (after.leaves_king_attacked(Move(a, s))) continue;  // pinned: not a real threat
      // A piece that did not move counts only when its attack is new (discovered).
      if (a != m.to() && attacks(before, a, s, us)) continue;
      const bool heavy_target = target == CHARIOT && (by == HORSE || by == CANNON);
      if (heavy_target || !defended_against(after, a, s)) {
        result |= bit(s);
        break;
      }
    }
  }
  return result;
}

CycleVerdict judge_cycle(const Position& start, const Move* moves, int n) {
  CycleVerdict v;
  bool moved[2] = {false, false}, all_check[2] = {true, true}, quiet[2] = {false, false};
  SquareSet candidates[2] = {0, 0};  // by chasing colour: squares of the pieces it may be chasing
  Position pos = start;
  for (int i = 0; i < n; ++i) {
    const Move m = moves[i];
    const Color us = pos.side_to_move(), them = ~us;
    const SquareSet targets = chase_targets(pos, m);
    UndoInfo undo;
    pos.do_move(m, undo);
    moved[us] = true;
    // Follow the other side's candidate targets when one of them moves.
    if (candidates[them] & bit(m.from())) candidates[them] = (candidates[them] & ~bit(m.from())) | bit(m.to());
    if (pos.in_check()) continue;  // a check is a wildcard for the chase test
    all_check[us] = false;
    candidates[us] = quiet[us] ? (candidates[us] & targets) : targets;
    quiet[us] = true;
  }
  for (Color c : {RED, BLACK}) {
    v.perpetual_check[c] = moved[c] && all_check[c];
    v.chases[c] = !v.perpetual_check[c] && quiet[c] && candidates[c] != 0;
    if (v.chases[c]) {
      const uint64_t lo = uint64_t(candidates[c]), hi = uint64_t(candidates[c] >> 64);
      v.chased[c] = lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(hi);
    }
  }
  if (v.perpetual_check[RED] != v.perpetual_check[BLACK]) {
    v.loser = v.perpetual_check[RED] ? RED : BLACK;
    v.by_check = true;
  } else if (!v.perpetual_check[RED] && v.chases[RED] != v.chases[BLACK]) {
    v.loser = v.chases[RED] ? RED : BLACK;
  }
  return v;
}

}  // namespace xq
