#include "app/uci/go_command.h"

#include <algorithm>
#include <iterator>

#include "app/uci/uci_text.h"
#include "core/errors.h"
#include "core/move_parse.h"
#include "core/perft.h"

namespace xq::app::uci {

namespace {

const char* const kGoValued[] = {"wtime",    "btime", "winc",  "binc",  "movestogo",
                                 "movetime", "nodes", "depth", "perft", "mate"};
constexpr int64_t kMaxMs = int64_t(1) << 40;  // about 35 years: no clock arithmetic overflows

bool go_takes_value(const std::string& w) {
  return std::find(std::begin(kGoValued), std::end(kGoValued), w) != std::end(kGoValued);
}
bool is_go_word(const std::string& w) {
  return go_takes_value(w) || w == "infinite" || w == "ponder" || w == "searchmoves";
}

// The range of a go value and what a value below it means.
struct GoRange {
  int64_t lo, hi;
  enum Low { kIgnore, kUseLow, kQuietLow } low;  // ignore the limit, use lo (noted), use lo silently
};

GoRange go_range(const std::string& key) {
  if (key == "wtime" || key == "btime") return {0, kMaxMs, GoRange::kQuietLow};  // GUIs send -1 and the like
  if (key == "winc" || key == "binc") return {0, kMaxMs, GoRange::kUseLow};
  if (key == "movestogo") return {0, 1000, GoRange::kIgnore};
  if (key == "movetime") return {1, kMaxMs, GoRange::kIgnore};
  if (key == "nodes") return {1, INT64_MAX, GoRange::kIgnore};
  if (key == "depth") return {1, 1000, GoRange::kIgnore};
  if (key == "mate") return {1, kMaxMateMoves, GoRange::kIgnore};
  return {1, kMaxPerftDepth, GoRange::kIgnore};  // perft
}

void store_go_value(search::GoParams& go, const std::string& key, int64_t v) {
  if (key == "wtime")
    go.wtime = v;
  else if (key == "btime")
    go.btime = v;
  else if (key == "winc")
    go.winc = v;
  else if (key == "binc")
    go.binc = v;
  else if (key == "movestogo")
    go.movestogo = int(v);
  else if (key == "movetime")
    go.movetime = v;
  else if (key == "nodes")
    go.nodes = v;
  else if (key == "depth")
    go.depth = int(v);
  else if (key == "perft")
    go.perft = int(v);
}

// Applies one parsed value, noting a value out of range: a value below the range ignores the
// limit (or counts as the lowest value), one above it is clamped, a perft depth outside
// 1..kMaxPerftDepth is refused.
void apply_go_value(GoRequest& r, const std::string& key, const std::string& text, int64_t v, bool saturated) {
  const std::string named = "go: " + key + " " + clip(text);
  const GoRange range = go_range(key);
  const std::string span = std::to_string(range.lo) + ".." + std::to_string(range.hi);
  if (key == "perft" && (v < range.lo || v > range.hi)) {
    r.notes.push_back(named + " is out of range " + span + "; perft ignored");
    r.bad_value = true;
    return;
  }
  if (v < range.lo) {
    if (range.low != GoRange::kQuietLow) {
      r.notes.push_back(named + " is out of range " + span + "; " +
                        (range.low == GoRange::kIgnore ? std::string("ignored") : "using " + std::to_string(range.lo)));
      r.bad_value = true;
    }
    if (range.low != GoRange::kIgnore) store_go_value(r.go, key, range.lo);
    return;
  }
  if (v > range.hi || saturated) {
    r.notes.push_back(named + " is out of range " + span + "; using " + std::to_string(range.hi));
    v = range.hi;
  }
  if (key == "mate")
    r.mate = int(v);
  else
    store_go_value(r.go, key, v);
}

// Reads the moves after searchmoves from words[i + 1] on (up to the next go word); returns
// the index of the last one read. At most kNamedBadMoves bad moves are named, then counted.
size_t read_search_moves(const std::vector<std::string>& words, size_t i, const Position& pos, GoRequest& r) {
  constexpr int kNamedBadMoves = 8;
  int bad = 0;
  while (i + 1 < words.size() && !is_go_word(words[i + 1])) {
    const std::string& text = words[++i];
    try {
      const Move m = parse_legal_move(pos, text);
      if (std::find(r.search_moves.begin(), r.search_moves.end(), m) == r.search_moves.end())
        r.search_moves.push_back(m);
    } catch (const MoveError& e) {
      if (++bad <= kNamedBadMoves) r.notes.push_back("go: searchmoves: " + clip_echo(e.what(), text) + "; ignored");
    }
  }
  if (bad > kNamedBadMoves)
    r.notes.push_back("go: searchmoves: " + std::to_string(bad - kNamedBadMoves) + " more bad moves ignored");
  return i;
}

}  // namespace

GoRequest parse_go(const std::vector<std::string>& words, const Position& pos) {
  GoRequest r;
  bool searchmoves = false;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "infinite" || w == "ponder") {
      (w == "infinite" ? r.go.infinite : r.go.ponder) = true;
    } else if (w == "searchmoves") {
      searchmoves = true;
      i = read_search_moves(words, i, pos, r);
    } else if (!go_takes_value(w)) {
      r.notes.push_back("go: unknown parameter '" + clip(w) + "' ignored");
    } else {
      if (w == "perft") r.perft = true;
      int64_t v = 0;
      bool saturated = false;
      if (i + 1 >= words.size() || is_go_word(words[i + 1])) {
        r.notes.push_back("go: " + w + " needs a value; ignored");
        r.bad_value = true;
      } else if (!parse_int(words[++i], v, &saturated)) {
        r.notes.push_back("go: " + w + " needs an integer, got '" + clip(words[i]) + "'; ignored");
        r.bad_value = true;
      } else {
        apply_go_value(r, w, words[i], v, saturated);
      }
    }
  }
  if (searchmoves && r.search_moves.empty())
    r.notes.push_back("go: searchmoves lists no legal move; searching every move");
  return r;
}

SearchLimits go_limits(const GoRequest& r, Color side, int64_t move_overhead_ms, std::vector<std::string>& notes) {
  SearchLimits limits;
  limits.nodes = r.go.nodes;
  limits.depth = r.go.depth;
  if (limits.depth > 0) {
    // go depth D for an MCTS: the search ends when its simulations average D plies, or after
    // kVisitsPerDepthSquared * D^2 new visits, whichever comes first, so the depths GUIs send
    // (10-30) end in seconds (docs in README, "xqzero uci").
    const int64_t budget = kVisitsPerDepthSquared * int64_t(limits.depth) * limits.depth;
    limits.nodes = limits.nodes > 0 ? std::min(limits.nodes, budget) : budget;
  }
  if (r.mate > 0) {
    // go mate N: the search ends once a win in at most N moves is proven (the solver's
    // proofs, search/search.h), else after kMateVisitsPerMoveSquared * N^2 new visits.
    limits.mate = r.mate;
    const int64_t budget = kMateVisitsPerMoveSquared * int64_t(r.mate) * r.mate;
    limits.nodes = limits.nodes > 0 ? std::min(limits.nodes, budget) : budget;
  }
  limits.time = search::compute_time_budget(r.go, side, move_overhead_ms);
  const bool unlimited = limits.nodes <= 0 && limits.depth <= 0 && !limits.time.limited();
  if (unlimited && r.bad_value && !r.go.infinite) {
    // The GUI meant a finite search but no limit is left: it must not wait for a stop it
    // will not send. One visit: the best move found so far (kept tree), else a legal move.
    notes.push_back("go: no valid limit left; answering at once");
    limits.nodes = 1;
  }
  // A go without any limit searches until stop, like go infinite.
  limits.infinite = r.go.infinite || (limits.nodes <= 0 && limits.depth <= 0 && !limits.time.limited());
  limits.ponder = r.go.ponder;
  return limits;
}

}  // namespace xq::app::uci
