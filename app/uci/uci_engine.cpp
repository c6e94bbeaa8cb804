#include "app/uci/uci_engine.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <istream>
#include <ostream>
#include <sstream>

#include "app/line_reader.h"
#include "app/uci/uci_text.h"
#include "core/errors.h"
#include "core/movegen.h"
#include "core/perft.h"
#include "nn/bundled_net.h"
#include "nn/evaluator_factory.h"
#include "selfplay/selfplay_config.h"
#include "training/config_text.h"
#include "util/text.h"

namespace xq::app::uci {

namespace {

// ---- go ----

// What `go` asked for, and what was wrong with it.
struct GoRequest {
  search::GoParams go;
  std::vector<std::string> notes;  // info strings: a bad value and what is done instead
  bool bad_value = false;          // a value was bad (its limit ignored or replaced)
  bool perft = false;              // go perft: go.perft is its depth, 0 when that was bad
};

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
  if (key == "mate") {
    r.notes.push_back(named + ": mate search is not supported; ignored");
    r.bad_value = true;
    return;
  }
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
  store_go_value(r.go, key, v);
}

// Reads go's words. Unknown words and bad values are noted and skipped; the rest is kept.
GoRequest parse_go(const std::vector<std::string>& words) {
  GoRequest r;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "infinite" || w == "ponder") {
      (w == "infinite" ? r.go.infinite : r.go.ponder) = true;
    } else if (w == "searchmoves") {
      r.notes.push_back("go: searchmoves is not supported; searching every move");
      while (i + 1 < words.size() && !is_go_word(words[i + 1])) ++i;
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
  return r;
}

}  // namespace

UciEngine::UciEngine(std::ostream& out, xqzero::Config config) : out_(out), config_(std::move(config)) {
  // No weights named: the engine plays the bundled net (nn/bundled_net.h).
  if (config_.evaluator().weights().empty()) config_.mutable_evaluator()->set_weights("bundled");
  options_ = make_options(config_);
  search_ = std::make_unique<SearchThread>([this](const std::string& line) { emit(line); });
}

UciEngine::~UciEngine() {
  search_->stop();
  search_->wait();
}

void UciEngine::emit(const std::string& line) {
  std::lock_guard<std::mutex> lock(out_mutex_);
  out_ << line << "\n";
  out_.flush();
}

Option* UciEngine::find_option(const std::string& name) {
  for (Option& o : options_)
    if (o.named(name)) return &o;
  return nullptr;
}

void UciEngine::wait_idle() { search_->wait(); }

int UciEngine::loop(std::istream& in) {
  // std::cin is tied to std::cout: every read would flush the output from this thread while
  // the search thread writes to it. All output is flushed under the output lock instead.
  std::ostream* const tied = in.tie(nullptr);
  struct Retie {
    std::istream& in;
    std::ostream* tied;
    ~Retie() { in.tie(tied); }
  } retie{in, tied};
  std::string line;
  bool too_long = false;
  while (read_line(in, line, too_long)) {
    if (too_long) {
      emit("info string line of more than " + std::to_string(kMaxLineBytes) + " bytes ignored: '" + clip(line) + "'");
      continue;
    }
    if (!command(line)) return 0;
  }
  // End of input is quit: whatever runs is stopped (its bestmove printed), as Stockfish does.
  search_->stop();
  search_->wait();
  return 0;
}

bool UciEngine::command(const std::string& raw) {
  std::string line = raw;
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  const std::vector<std::string> words = split_words(line);
  if (words.empty()) return true;
  const std::string& cmd = words[0];
  try {
    if (cmd == "uci") {
      cmd_uci();
    } else if (cmd == "isready") {
      cmd_isready();
    } else if (cmd == "ucinewgame") {
      make_idle();
      search_->clear_trees();
      game_ = Game();
    } else if (cmd == "position") {
      cmd_position(words);
    } else if (cmd == "go") {
      cmd_go(words);
    } else if (cmd == "stop") {
      search_->stop();
    } else if (cmd == "ponderhit") {
      search_->ponderhit();
    } else if (cmd == "setoption") {
      cmd_setoption(line);
    } else if (cmd == "d") {
      cmd_display();
    } else if (cmd == "quit") {
      search_->stop();
      search_->wait();
      return false;
    } else {
      emit("info string unknown command '" + clip(cmd) + "'");
    }
  } catch (const std::exception& e) {  // never let bad input end the engine
    emit("info string error: " + clip(e.what(), 4 * kEchoChars));
  }
  return true;
}

void UciEngine::cmd_uci() {
  emit("id name xqzero 0.1");
  emit("id author the xqzero authors");
  for (const Option& o : options_) emit(o.describe());
  emit("uciok");
}

void UciEngine::cmd_isready() {
  if (!search_->busy()) {
    ensure_evaluator();
    report_weights_error();
  }
  emit("readyok");
}

// What go, setoption and ucinewgame need: no search running. A running search or perft is
// stopped first (its bestmove or partial count printed), as Stockfish does, so the input
// thread waits only for a stopped search to end, never for one to run its course.
void UciEngine::make_idle() {
  if (search_->busy()) search_->stop();
  search_->wait();
}

// Builds the evaluator the options name when they changed. A WeightsFile that cannot be
// loaded never falls back to uniform priors: the previous net stays (or none, when there was
// none) and weights_error_ says why, at every isready and go until a loadable one is set.
void UciEngine::ensure_evaluator() {
  if (!evaluator_dirty_) return;
  evaluator_dirty_ = false;
  const xqzero::EvaluatorConfig& ec = config_.evaluator();
  // The batch never waits for more leaves than the search has in flight.
  const int in_flight =
      int(std::min<int64_t>(1 << 20, find_option("Threads")->integer() * int64_t(config_.search().leaves_per_batch())));
  const std::string weights = ec.weights();
  try {
    const bool uniform = nn::is_uniform_weights(weights);
    const std::string file = uniform ? std::string() : nn::resolve_weights(weights);
    evaluator_ = nn::make_weights_evaluator(weights, ec, in_flight);
    weights_error_.clear();
    net_description_ = uniform ? "uniform priors (no network)" : file + " (" + evaluator_->describe() + ")";
    emit("info string net: " + net_description_);
  } catch (const std::exception& e) {
    weights_error_ = "cannot load WeightsFile '" + clip(weights) + "': " + clip_echo(e.what(), weights) +
                     (evaluator_ ? "; keeping " + net_description_ : "; no net to play with");
  }
}

void UciEngine::report_weights_error() {
  if (!weights_error_.empty()) emit("info string " + weights_error_);
}

void UciEngine::cmd_setoption(const std::string& line) {
  // setoption name <name, may have spaces> [value <value, may have spaces>]
  const std::vector<std::string> words = split_words(line);
  if (words.size() < 3 || words[1] != "name") {
    emit("info string setoption: expected 'setoption name X value Y'");
    return;
  }
  std::string name, value;
  bool in_value = false, has_value = false;
  for (size_t i = 2; i < words.size(); ++i) {
    if (!in_value && words[i] == "value") {
      in_value = has_value = true;
      continue;
    }
    std::string& s = in_value ? value : name;
    s += (s.empty() ? "" : " ") + words[i];
  }
  Option* o = find_option(name);
  if (!o) {
    emit("info string setoption: unknown option '" + clip(name) + "'");
    return;
  }
  if (!has_value && o->type != "string") {
    emit("info string setoption: option '" + o->name + "' needs a value");
    return;
  }
  make_idle();
  const std::string why = o->set(value);
  if (!why.empty()) {
    emit("info string setoption: " + o->name + " " + why);
    return;
  }
  if (!o->path.empty()) training::apply_setting(config_, o->path + "=" + o->value);  // range checked by set()
  if (o->evaluator || o->name == "Threads" || o->path == "search.leaves_per_batch") evaluator_dirty_ = true;
}

void UciEngine::cmd_position(const std::vector<std::string>& words) {
  if (words.size() < 2) {
    emit("info string position: expected 'position startpos|fen F [moves ...]'");
    return;
  }
  size_t i;
  std::string fen;
  if (words[1] == "startpos") {
    fen = Position::kStartFen;
    i = 2;
  } else if (words[1] == "fen") {
    i = 2;
    while (i < words.size() && words[i] != "moves") fen += (fen.empty() ? "" : " ") + words[i++];
    if (fen.empty()) {
      emit("info string position: missing FEN after 'fen'");
      return;
    }
  } else {
    emit("info string position: expected startpos or fen, got '" + clip(words[1]) + "'");
    return;
  }
  Game g;
  try {
    g = Game(fen);
  } catch (const FenError& e) {
    emit("info string position: bad FEN: " + clip_echo(e.what(), fen) + "; position unchanged");
    return;
  }
  if (i < words.size()) {
    if (words[i] != "moves") {
      emit("info string position: expected 'moves', got '" + clip(words[i]) + "'; position unchanged");
      return;
    }
    // A bad move refuses the whole command: the engine never searches a position the GUI
    // did not ask for (the moves before it would be one).
    const size_t first_move = i + 1;
    for (++i; i < words.size(); ++i) {
      try {
        g.play(words[i]);
      } catch (const MoveError& e) {
        emit("info string position: move " + std::to_string(i - first_move + 1) + ": " + clip_echo(e.what(), words[i]) +
             "; position unchanged");
        return;
      }
    }
  }
  game_ = g;
}

void UciEngine::cmd_go(const std::vector<std::string>& words) {
  const GoRequest r = parse_go(words);
  for (const std::string& note : r.notes) emit("info string " + note);
  if (r.perft) {
    if (r.go.perft > 0) {
      make_idle();
      search_->start_perft(game_.position(), r.go.perft);
    }
    return;
  }
  make_idle();
  ensure_evaluator();
  report_weights_error();
  if (!evaluator_) {  // no net could be loaded yet: refuse rather than play without one
    emit("bestmove (none)");
    return;
  }
  SearchSettings s;
  s.search.params = selfplay::search_params(config_.search());
  s.search.threads = int(find_option("Threads")->integer());
  s.search.leaves_per_batch = config_.search().leaves_per_batch();
  s.multipv = int(find_option("MultiPV")->integer());
  s.show_wdl = find_option("UCI_ShowWDL")->check();
  s.search.max_tree_bytes = size_t(find_option("Hash")->integer()) << 20;
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
  limits.time = search::compute_time_budget(r.go, game_.side_to_move(), find_option("Move Overhead")->integer());
  const bool unlimited = limits.nodes <= 0 && limits.depth <= 0 && !limits.time.limited();
  if (unlimited && r.bad_value && !r.go.infinite) {
    // The GUI meant a finite search but no limit is left: it must not wait for a stop it
    // will not send. One visit: the best move found so far (kept tree), else a legal move.
    emit("info string go: no valid limit left; answering at once");
    limits.nodes = 1;
  }
  // A go without any limit searches until stop, like go infinite.
  limits.infinite = r.go.infinite || (limits.nodes <= 0 && limits.depth <= 0 && !limits.time.limited());
  limits.ponder = r.go.ponder;
  last_budget_ = limits.time;
  search_->start(game_, evaluator_, s, limits);
}

void UciEngine::cmd_display() {
  std::lock_guard<std::mutex> lock(out_mutex_);
  out_ << game_.position().diagram() << "\nFen: " << game_.position().fen() << "\n";
  const GameState st = game_.state();
  if (st.over()) out_ << "Game over: " << st.to_string() << "\n";
  out_.flush();
}

}  // namespace xq::app::uci
