#include "app/uci/uci_engine.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <exception>
#include <istream>
#include <ostream>
#include <sstream>

#include "app/uci/weights.h"
#include "core/errors.h"
#include "core/movegen.h"
#include "core/perft.h"

namespace xq::app::uci {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split(const std::string& line) {
  std::istringstream is(line);
  std::vector<std::string> w;
  for (std::string s; is >> s;) w.push_back(s);
  return w;
}

bool parse_int(const std::string& text, int64_t& out) {
  if (text.empty()) return false;
  size_t i = 0;
  if (text[0] == '-' || text[0] == '+') i = 1;
  if (i >= text.size() || text.size() > 19) return false;
  for (size_t k = i; k < text.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(text[k]))) return false;
  out = std::stoll(text);
  return true;
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
        return "needs an integer in " + std::to_string(min) + ".." + std::to_string(max) + ", got '" + v + "'";
      value = std::to_string(x);
    } else if (type == "check") {
      const std::string l = lower(v);
      if (l != "true" && l != "false") return "needs true or false, got '" + v + "'";
      value = l;
    } else if (type == "combo") {
      for (const std::string& c : vars)
        if (lower(c) == lower(v)) {
          value = c;
          return "";
        }
      std::string all;
      for (const std::string& c : vars) all += (all.empty() ? "" : ", ") + c;
      return "needs one of " + all + ", got '" + v + "'";
    } else if (real_max > real_min) {
      double x = 0;
      if (!parse_real(v, x) || x < real_min || x > real_max) {
        std::ostringstream os;
        os << "needs a number in " << real_min << ".." << real_max << ", got '" << v << "'";
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
    if (lower(o.name) == lower(name)) return &o;
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
  while (std::getline(in, line))
    if (!command(line)) return 0;
  // End of input: a finite search may finish; an infinite one is stopped.
  if (search_->waits_for_stop()) search_->stop();
  search_->wait();
  return 0;
}

bool UciEngine::command(const std::string& raw) {
  std::string line = raw;
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  const std::vector<std::string> words = split(line);
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
      emit("info string unknown command '" + cmd + "'");
    }
  } catch (const std::exception& e) {  // never let bad input end the engine
    emit(std::string("info string error: ") + e.what());
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
  // The batch never waits for more leaves than the search has in flight.
  const int64_t in_flight = find_option("Threads")->integer() * find_option("LeavesPerBatch")->integer();
  ec.set_max_batch(int(std::max<int64_t>(1, std::min(find_option("BatchSize")->integer(), in_flight))));
  ec.set_cache_entries(find_option("CacheSize")->integer());
  ec.set_threads(int(find_option("EvalThreads")->integer()));
  const std::string weights = find_option("WeightsFile")->value;
  try {
    evaluator_ = make_weights_evaluator(weights, ec);
  } catch (const std::exception& e) {
    emit(std::string("info string cannot load WeightsFile '") + weights + "': " + e.what() +
         "; searching with uniform priors");
    evaluator_ = make_weights_evaluator("uniform", ec);
  }
  if (!is_uniform_weights(weights)) emit("info string evaluator: " + evaluator_->describe());
}

void UciEngine::cmd_setoption(const std::string& line) {
  // setoption name <name, may have spaces> [value <value, may have spaces>]
  const std::vector<std::string> words = split(line);
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
    emit("info string setoption: unknown option '" + name + "'");
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
    emit("info string position: expected startpos or fen, got '" + words[1] + "'");
    return;
  }
  Game g;
  try {
    g = Game(fen);
  } catch (const FenError& e) {
    emit(std::string("info string position: bad FEN: ") + e.what() + "; position unchanged");
    return;
  }
  if (i < words.size()) {
    if (words[i] != "moves") {
      emit("info string position: expected 'moves', got '" + words[i] + "'; position unchanged");
      return;
    }
    for (++i; i < words.size(); ++i) {
      try {
        g.play(words[i]);
      } catch (const MoveError& e) {
        emit(std::string("info string position: ") + e.what() + "; the moves after it are ignored");
        break;
      }
    }
  }
  game_ = g;
}

void UciEngine::cmd_go(const std::vector<std::string>& words) {
  GoParams go;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "infinite") {
      go.infinite = true;
      continue;
    }
    if (w == "ponder") {
      go.ponder = true;
      continue;
    }
    if (w == "searchmoves") {
      emit("info string go: searchmoves is not supported; searching every move");
      while (i + 1 < words.size() && words[i + 1].size() == 4 && std::isdigit(static_cast<unsigned char>(words[i + 1][1])))
        ++i;
      continue;
    }
    static const char* kValued[] = {"wtime", "btime", "winc", "binc", "movestogo", "movetime", "nodes", "depth", "perft", "mate"};
    if (std::find(std::begin(kValued), std::end(kValued), w) == std::end(kValued)) {
      emit("info string go: unknown parameter '" + w + "' ignored");
      continue;
    }
    int64_t v = 0;
    if (i + 1 >= words.size() || !parse_int(words[i + 1], v)) {
      emit("info string go: " + w + " needs an integer" +
           (i + 1 < words.size() ? ", got '" + words[i + 1] + "'" : std::string()) + "; go ignored");
      return;
    }
    ++i;
    const bool negative_ok = w == "wtime" || w == "btime";  // some GUIs send a slightly negative clock
    if (v < 0 && !negative_ok) {
      emit("info string go: " + w + " must not be negative; go ignored");
      return;
    }
    if (w == "wtime") go.wtime = std::max<int64_t>(0, v);
    else if (w == "btime") go.btime = std::max<int64_t>(0, v);
    else if (w == "winc") go.winc = v;
    else if (w == "binc") go.binc = v;
    else if (w == "movestogo") go.movestogo = int(std::min<int64_t>(v, 1000));
    else if (w == "movetime") go.movetime = v;
    else if (w == "nodes") go.nodes = v;
    else if (w == "depth") go.depth = int(std::min<int64_t>(v, 1000));
    else if (w == "perft") go.perft = int(std::min<int64_t>(v, 64));
    else if (w == "mate") emit("info string go: mate is not supported; searching normally");
  }
  if (!wait_for_finite_search("go")) return;
  if (go.perft > 0) {
    perft(go.perft);
    return;
  }
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
  limits.nodes = go.nodes;
  limits.depth = go.depth;
  limits.time = compute_time_budget(go, game_.side_to_move(), find_option("MoveOverhead")->integer());
  // A go without any limit searches until stop, like go infinite.
  limits.infinite = go.infinite || (go.nodes <= 0 && go.depth <= 0 && !limits.time.limited());
  limits.ponder = go.ponder;
  last_budget_ = limits.time;
  search_->start(game_, evaluator_, s, limits);
}

void UciEngine::perft(int depth) {
  Position pos = game_.position();
  uint64_t total = 0;
  for (const auto& [m, count] : perft_divide(pos, depth)) {
    emit(move_to_iccs(m) + ": " + std::to_string(count));
    total += count;
  }
  emit("");
  emit("Nodes searched: " + std::to_string(total));
}

void UciEngine::cmd_display() {
  std::lock_guard<std::mutex> lock(out_mutex_);
  out_ << game_.position().diagram() << "\nFen: " << game_.position().fen() << "\n";
  const GameState st = game_.state();
  if (st.over()) out_ << "Game over: " << st.to_string() << "\n";
  out_.flush();
}

}  // namespace xq::app::uci
