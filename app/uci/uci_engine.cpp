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
#include "core/errors.h"
#include "core/movegen.h"
#include "core/perft.h"
#include "nn/evaluator_factory.h"
#include "util/text.h"

namespace xq::app::uci {

namespace {

// Parses an optionally signed decimal integer. A value beyond int64_t's range saturates at
// its end and sets `*saturated`. False when the text is no integer.
bool parse_int(const std::string& text, int64_t& out, bool* saturated = nullptr) {
  const bool negative = !text.empty() && text[0] == '-';
  const size_t first = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (first >= text.size()) return false;
  const uint64_t limit = uint64_t(INT64_MAX) + (negative ? 1 : 0);
  uint64_t magnitude = 0;
  bool over = false;
  for (size_t k = first; k < text.size(); ++k) {
    if (text[k] < '0' || text[k] > '9') return false;
    const uint64_t digit = uint64_t(text[k] - '0');
    if (!over && magnitude > (limit - digit) / 10) over = true;
    if (!over) magnitude = magnitude * 10 + digit;
  }
  if (over) magnitude = limit;
  if (saturated) *saturated = over;
  out = !negative ? int64_t(magnitude) : magnitude > uint64_t(INT64_MAX) ? INT64_MIN : -int64_t(magnitude);
  return true;
}

// Input echoed in an info string is cut to this many characters (then "...").
constexpr size_t kEchoChars = 80;

std::string clip(const std::string& text, size_t max = kEchoChars) {
  return text.size() <= max ? text : text.substr(0, max) + "...";
}

// An exception's message with its copy of the rejected `input` clipped.
std::string clip_echo(const std::string& message, const std::string& input) {
  std::string out = message;
  const size_t at = input.size() > kEchoChars ? out.find(input) : std::string::npos;
  if (at != std::string::npos) out.replace(at, input.size(), clip(input));
  return clip(out, 4 * kEchoChars);
}

bool parse_real(const std::string& text, double& out) {
  if (text.empty()) return false;
  try {
    size_t used = 0;
    out = std::stod(text, &used);
    return used == text.size() && std::isfinite(out);
  } catch (const std::exception&) {
    return false;
  }
}

// ---- go ----

// What `go` asked for, and what was wrong with it.
struct GoRequest {
  GoParams go;
  std::vector<std::string> notes;  // info strings: a bad value and what is done instead
  bool bad_value = false;          // a value was bad (its limit ignored or replaced)
  bool perft = false;              // go perft: go.perft is its depth, 0 when that was bad
};

const char* const kGoValued[] = {"wtime", "btime", "winc", "binc", "movestogo", "movetime",
                                 "nodes", "depth", "perft", "mate"};
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

void store_go_value(GoParams& go, const std::string& key, int64_t v) {
  if (key == "wtime") go.wtime = v;
  else if (key == "btime") go.btime = v;
  else if (key == "winc") go.winc = v;
  else if (key == "binc") go.binc = v;
  else if (key == "movestogo") go.movestogo = int(v);
  else if (key == "movetime") go.movetime = v;
  else if (key == "nodes") go.nodes = v;
  else if (key == "depth") go.depth = int(v);
  else if (key == "perft") go.perft = int(v);
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

// One declaration per option: its UCI type, default and range; the engine reads values by name.
struct UciEngine::Option {
  std::string name;
  std::string type;  // spin, check, string, combo
  std::string def;
  int64_t min = 0, max = 0;          // spin
  double real_min = 0, real_max = 0;  // string options holding a number (real_max > real_min)
  std::vector<std::string> vars;     // combo
  bool evaluator = false;            // changing it rebuilds the evaluator
  std::string value;

  std::string describe() const {
    std::string s = "option name " + name + " type " + type + " default " + (def.empty() ? "<empty>" : def);
    if (type == "spin") s += " min " + std::to_string(min) + " max " + std::to_string(max);
    for (const std::string& v : vars) s += " var " + v;
    return s;
  }
  // "" when `v` is acceptable (and stores it), else why not.
  std::string set(const std::string& v) {
    if (type == "spin") {
      int64_t x = 0;
      if (!parse_int(v, x) || x < min || x > max)
        return "needs an integer in " + std::to_string(min) + ".." + std::to_string(max) + ", got '" + clip(v) + "'";
      value = std::to_string(x);
    } else if (type == "check") {
      const std::string l = to_lower(v);
      if (l != "true" && l != "false") return "needs true or false, got '" + clip(v) + "'";
      value = l;
    } else if (type == "combo") {
      for (const std::string& c : vars)
        if (to_lower(c) == to_lower(v)) {
          value = c;
          return "";
        }
      std::string all;
      for (const std::string& c : vars) all += (all.empty() ? "" : ", ") + c;
      return "needs one of " + all + ", got '" + clip(v) + "'";
    } else if (real_max > real_min) {
      double x = 0;
      if (!parse_real(v, x) || x < real_min || x > real_max) {
        std::ostringstream os;
        os << "needs a number in " << real_min << ".." << real_max << ", got '" << clip(v) << "'";
        return os.str();
      }
      value = v;
    } else {
      value = v == "<empty>" ? "" : v;
    }
    return "";
  }
  int64_t integer() const { return std::stoll(value); }
  double real() const { return std::stod(value); }
  bool check() const { return value == "true"; }
};

namespace {

UciEngine::Option spin(const char* name, int64_t def, int64_t lo, int64_t hi, bool evaluator = false) {
  UciEngine::Option o;
  o.name = name;
  o.type = "spin";
  o.def = o.value = std::to_string(def);
  o.min = lo;
  o.max = hi;
  o.evaluator = evaluator;
  return o;
}
UciEngine::Option check(const char* name, bool def) {
  UciEngine::Option o;
  o.name = name;
  o.type = "check";
  o.def = o.value = def ? "true" : "false";
  return o;
}
UciEngine::Option text(const char* name, const char* def, bool evaluator = false) {
  UciEngine::Option o;
  o.name = name;
  o.type = "string";
  o.def = o.value = def;
  o.evaluator = evaluator;
  return o;
}
UciEngine::Option real(const char* name, const char* def, double lo, double hi) {
  UciEngine::Option o = text(name, def);
  o.real_min = lo;
  o.real_max = hi;
  return o;
}
UciEngine::Option combo(const char* name, const char* def, std::vector<std::string> vars) {
  UciEngine::Option o;
  o.name = name;
  o.type = "combo";
  o.def = o.value = def;
  o.vars = std::move(vars);
  return o;
}

}  // namespace

UciEngine::UciEngine(std::ostream& out) : out_(out) {
  options_ = {
      text("WeightsFile", "uniform", true),  // "uniform": no network
      spin("Threads", 1, 1, 64),
      spin("MultiPV", 1, 1, 256),
      check("UCI_ShowWDL", false),
      check("Ponder", false),
      spin("MoveOverhead", 100, 0, 10000),
      combo("SearchAlgorithm", "puct", {"puct", "gumbel"}),
      real("CPuct", "1.25", 0, 10),
      real("CPuctBase", "19652", 1, 1e7),
      real("FPUReduction", "0.25", 0, 2),
      spin("LeavesPerBatch", 8, 1, 256),
      spin("BatchSize", 256, 1, 4096, true),
      spin("CacheSize", 200000, 0, 100000000, true),
      text("Device", "auto", true),
      spin("EvalThreads", 0, 0, 256, true),
      spin("TreeMemoryMB", 1024, 16, 1 << 20),
  };
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

UciEngine::Option* UciEngine::find_option(const std::string& name) {
  for (Option& o : options_)
    if (to_lower(o.name) == to_lower(name)) return &o;
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
  // End of input: a finite search may finish; an infinite one is stopped.
  if (search_->waits_for_stop()) search_->stop();
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
      if (!wait_for_finite_search("ucinewgame")) return true;
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
  if (!search_->busy()) ensure_evaluator();
  emit("readyok");
}

bool UciEngine::wait_for_finite_search(const char* what) {
  if (!search_->busy()) {
    search_->wait();
    return true;
  }
  if (search_->waits_for_stop()) {
    emit(std::string("info string ") + what + " ignored: a search is running (send stop first)");
    return false;
  }
  search_->wait();
  return true;
}

void UciEngine::ensure_evaluator() {
  if (!evaluator_dirty_ && evaluator_) return;
  evaluator_dirty_ = false;
  xqzero::EvaluatorConfig ec;
  ec.set_device(find_option("Device")->value);
  ec.set_max_batch(int(find_option("BatchSize")->integer()));
  ec.set_cache_entries(find_option("CacheSize")->integer());
  ec.set_threads(int(find_option("EvalThreads")->integer()));
  // The batch never waits for more leaves than the search has in flight.
  const int in_flight = int(std::min<int64_t>(1 << 20, find_option("Threads")->integer() *
                                                           find_option("LeavesPerBatch")->integer()));
  const std::string weights = find_option("WeightsFile")->value;
  try {
    evaluator_ = nn::make_weights_evaluator(weights, ec, in_flight);
  } catch (const std::exception& e) {
    emit("info string cannot load WeightsFile '" + clip(weights) + "': " + clip_echo(e.what(), weights) +
         "; searching with uniform priors");
    evaluator_ = nn::make_weights_evaluator("uniform", ec, in_flight);
  }
  if (!nn::is_uniform_weights(weights)) emit("info string evaluator: " + evaluator_->describe());
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
  if (!wait_for_finite_search("setoption")) return;
  const std::string why = o->set(value);
  if (!why.empty()) {
    emit("info string setoption: " + o->name + " " + why);
    return;
  }
  if (o->evaluator || o->name == "Threads" || o->name == "LeavesPerBatch") evaluator_dirty_ = true;
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
    for (++i; i < words.size(); ++i) {
      try {
        g.play(words[i]);
      } catch (const MoveError& e) {
        emit("info string position: " + clip_echo(e.what(), words[i]) + "; the moves after it are ignored");
        break;
      }
    }
  }
  game_ = g;
}

void UciEngine::cmd_go(const std::vector<std::string>& words) {
  const GoRequest r = parse_go(words);
  for (const std::string& note : r.notes) emit("info string " + note);
  if (r.perft) {
    if (r.go.perft > 0 && wait_for_finite_search("go")) search_->start_perft(game_.position(), r.go.perft);
    return;
  }
  if (!wait_for_finite_search("go")) return;
  ensure_evaluator();
  SearchSettings s;
  s.params.algorithm = find_option("SearchAlgorithm")->value == "gumbel" ? selfplay::RootAlgorithm::GUMBEL
                                                                         : selfplay::RootAlgorithm::PUCT;
  s.params.c_puct_init = float(find_option("CPuct")->real());
  s.params.c_puct_base = float(find_option("CPuctBase")->real());
  s.params.fpu_reduction = float(find_option("FPUReduction")->real());
  s.threads = int(find_option("Threads")->integer());
  s.leaves_per_batch = int(find_option("LeavesPerBatch")->integer());
  s.multipv = int(find_option("MultiPV")->integer());
  s.show_wdl = find_option("UCI_ShowWDL")->check();
  s.max_tree_bytes = size_t(find_option("TreeMemoryMB")->integer()) << 20;
  SearchLimits limits;
  limits.nodes = r.go.nodes;
  limits.depth = r.go.depth;
  limits.time = compute_time_budget(r.go, game_.side_to_move(), find_option("MoveOverhead")->integer());
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
