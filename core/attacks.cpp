// Attack queries. A king is attacked by chariots and cannons along its rank and file
// (cannons over exactly one screen of either colour), by the enemy king along an open
// file (flying general), by horses whose leg is free, and by pawns. Advisors and
// elephants never reach the enemy king but count for other squares.
#include <algorithm>
#include <cstring>

#include "core/position.h"
#include "core/tables.h"

namespace xq {

namespace {

// Attack test on a king square against a board described by its occupancy arrays and a
// piece accessor, so the same code serves the real board and a board with one move applied.
// With kFlying the enemy king counts as an attacker along an open file (the target is a
// king, so the facing-kings rule applies); without it, only the pieces that could capture.
template <bool kFlying, typename PieceAt>
inline bool attacked_impl(Square k, Color by, const uint16_t* rank_occ, const uint16_t* file_occ, PieceAt piece_at) {
  const Tables& T = tables();
  const int f = file_of(k), r = rank_of(k);
  const Piece chariot = make_piece(by, CHARIOT), cannon = make_piece(by, CANNON);
  const Piece king = make_piece(by, KING), horse = make_piece(by, HORSE), pawn = make_piece(by, PAWN);

  const LineView& rv = T.rank_view[f][rank_occ[r]];
  const int rbase = r * 9;
  if (rv.first_lo >= 0) {
    if (piece_at(rbase + rv.first_lo) == chariot) return true;
    if (rv.second_lo >= 0 && piece_at(rbase + rv.second_lo) == cannon) return true;
  }
  if (rv.first_hi >= 0) {
    if (piece_at(rbase + rv.first_hi) == chariot) return true;
    if (rv.second_hi >= 0 && piece_at(rbase + rv.second_hi) == cannon) return true;
  }
  const LineView& fv = T.file_view[r][file_occ[f]];
  if (fv.first_lo >= 0) {
    const Piece p = piece_at(fv.first_lo * 9 + f);
    if (p == chariot || (kFlying && p == king)) return true;
    if (fv.second_lo >= 0 && piece_at(fv.second_lo * 9 + f) == cannon) return true;
  }
  if (fv.first_hi >= 0) {
    const Piece p = piece_at(fv.first_hi * 9 + f);
    if (p == chariot || (kFlying && p == king)) return true;
    if (fv.second_hi >= 0 && piece_at(fv.second_hi * 9 + f) == cannon) return true;
  }
  for (const BlockedStep& st : T.horse_attackers[k])
    if (piece_at(st.to) == horse && piece_at(st.block) == NO_PIECE) return true;
  for (uint8_t s : T.pawn_attackers[by][k])
    if (piece_at(s) == pawn) return true;
  return false;
}

}  // namespace

bool Position::king_attacked_by(Square k, Color by) const {
  return attacked_impl<true>(k, by, rank_occ_, file_occ_, [this](Square s) { return board_[s]; });
}

bool Position::is_attacked(Square s, Color by) const {
  if (board_[s] == make_piece(~by, KING)) return king_attacked_by(s, by);
  const Tables& T = tables();
  if (attacked_impl<false>(s, by, rank_occ_, file_occ_, [this](Square t) { return board_[t]; })) return true;
  for (uint8_t t : T.king_steps[s])
    if (board_[t] == make_piece(by, KING)) return true;
  for (uint8_t t : T.advisor_steps[s])
    if (board_[t] == make_piece(by, ADVISOR)) return true;
  for (const BlockedStep& st : T.elephant_steps[s])
    if (board_[st.to] == make_piece(by, ELEPHANT) && board_[st.block] == NO_PIECE) return true;
  return false;
}

int Position::attackers(Square s, Color by, Square* out) const {
  const Tables& T = tables();
  const int f = file_of(s), r = rank_of(s);
  int n = 0;
  const bool target_is_king = board_[s] == make_piece(~by, KING);
  auto line = [&](const LineView& v, auto to_square, bool is_file) {
    const int firsts[2] = {v.first_lo, v.first_hi};
    const int seconds[2] = {v.second_lo, v.second_hi};
    for (int i = 0; i < 2; ++i) {
      if (firsts[i] < 0) continue;
      const Piece p = board_[to_square(firsts[i])];
      if (p == make_piece(by, CHARIOT) || (is_file && target_is_king && p == make_piece(by, KING)))
        out[n++] = to_square(firsts[i]);
      if (seconds[i] >= 0 && board_[to_square(seconds[i])] == make_piece(by, CANNON)) out[n++] = to_square(seconds[i]);
    }
  };
  line(
      T.rank_view[f][rank_occ_[r]], [r](int i) { return r * 9 + i; }, false);
  line(
      T.file_view[r][file_occ_[f]], [f](int i) { return i * 9 + f; }, true);
  for (const BlockedStep& st : T.horse_attackers[s])
    if (board_[st.to] == make_piece(by, HORSE) && board_[st.block] == NO_PIECE) out[n++] = st.to;
  for (uint8_t t : T.pawn_attackers[by][s])
    if (board_[t] == make_piece(by, PAWN)) out[n++] = t;
  for (uint8_t t : T.king_steps[s])
    if (board_[t] == make_piece(by, KING)) out[n++] = t;  // a step inside the palace
  for (uint8_t t : T.advisor_steps[s])
    if (board_[t] == make_piece(by, ADVISOR)) out[n++] = t;
  for (const BlockedStep& st : T.elephant_steps[s])
    if (board_[st.to] == make_piece(by, ELEPHANT) && board_[st.block] == NO_PIECE) out[n++] = st.to;
  return n;
}

void Position::attack_counts(Color by, uint8_t counts[SQUARE_NB]) const {
  std::memset(counts, 0, SQUARE_NB);
  const Tables& T = tables();
  // A line (rank or file) of `length` squares through a slider: a chariot reaches the empty squares
  // up to the nearest piece on each side and that piece; a cannon the squares beyond that
  // piece (its screen) up to and including the next one.
  auto line = [&](const LineView& v, int length, bool cannon, auto to_square) {
    if (!cannon) {
      for (unsigned bits = v.empty_reach; bits; bits &= bits - 1) ++counts[to_square(__builtin_ctz(bits))];
      if (v.first_lo >= 0) ++counts[to_square(v.first_lo)];
      if (v.first_hi >= 0) ++counts[to_square(v.first_hi)];
      return;
    }
    if (v.first_lo >= 0)
      for (int i = v.first_lo - 1; i >= std::max<int>(v.second_lo, 0); --i) ++counts[to_square(i)];
    if (v.first_hi >= 0)
      for (int i = v.first_hi + 1; i <= (v.second_hi >= 0 ? v.second_hi : length - 1); ++i) ++counts[to_square(i)];
  };
  for (int i = 0; i < count_[by]; ++i) {
    const Square s = plist_[by][i];
    const int f = file_of(s), r = rank_of(s);
    switch (type_of(board_[s])) {
      case CHARIOT:
      case CANNON: {
        const bool cannon = type_of(board_[s]) == CANNON;
        line(T.rank_view[f][rank_occ_[r]], FILE_NB, cannon, [r](int k) { return r * 9 + k; });
        line(T.file_view[r][file_occ_[f]], RANK_NB, cannon, [f](int k) { return k * 9 + f; });
        break;
      }
      case HORSE:
        for (const BlockedStep& st : T.horse_steps[s])
          if (board_[st.block] == NO_PIECE) ++counts[st.to];
        break;
      case ELEPHANT:
        for (const BlockedStep& st : T.elephant_steps[s])
          if (board_[st.block] == NO_PIECE) ++counts[st.to];
        break;
      case ADVISOR:
        for (uint8_t t : T.advisor_steps[s]) ++counts[t];
        break;
      case PAWN:
        for (uint8_t t : T.pawn_steps[by][s]) ++counts[t];
        break;
      case KING: {
        for (uint8_t t : T.king_steps[s]) ++counts[t];
        // Flying general: the enemy king, first piece along an open file, counts as attacked.
        const LineView& fv = T.file_view[r][file_occ_[f]];
        for (int k : {int(fv.first_lo), int(fv.first_hi)})
          if (k >= 0 && board_[k * 9 + f] == make_piece(~by, KING)) ++counts[k * 9 + f];
        break;
      }
      default: break;
    }
  }
}

bool Position::leaves_king_attacked(Move m) const {
  const Square from = m.from(), to = m.to();
  const Piece moving = board_[from];
  const Color us = color_of(moving);
  uint16_t rocc[RANK_NB], focc[FILE_NB];
  std::memcpy(rocc, rank_occ_, sizeof(rocc));
  std::memcpy(focc, file_occ_, sizeof(focc));
  rocc[rank_of(from)] ^= uint16_t(1 << file_of(from));
  focc[file_of(from)] ^= uint16_t(1 << rank_of(from));
  rocc[rank_of(to)] |= uint16_t(1 << file_of(to));
  focc[file_of(to)] |= uint16_t(1 << rank_of(to));
  const Square k = type_of(moving) == KING ? to : king_sq_[us];
  return attacked_impl<true>(k, ~us, rocc, focc, [&](Square s) {
    return s == to ? moving : s == from ? NO_PIECE : board_[s];
  });
}

}  // namespace xq
