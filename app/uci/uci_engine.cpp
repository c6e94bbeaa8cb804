#include "app/uci/uci_engine.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <istream>
#include <ostream>
#include <sstream>

#include "app/line_reader.h"
#include "app/uci/go_command.h"
#include "app/uci/uci_text.h"
#include "core/errors.h"
#include "nn/bundled_net.h"
#include "nn/evaluator_factory.h"
#include "selfplay/selfplay_config.h"
#include "training/config_text.h"
#include "util/text.h"

namespace xq::app::uci {

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
  // A line with a NUL or another control byte is refused whole, never echoed: what the GUI
  // meant cannot be told (the byte is named by its code).
  const auto control = std::find_if(line.begin(), line.end(), is_control_byte);
  if (control != line.end()) {
    char code[8];
    std::snprintf(code, sizeof code, "0x%02x", unsigned(static_cast<unsigned char>(*control)));
    emit("info string line ignored: control byte " + std::string(code) + " at byte " +
         std::to_string(control - line.begin() + 1));
    return true;
  }
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

// Idle, every isready says which net plays (a GUI that connects later sees it too), or why the
// WeightsFile set last could not be loaded (and which net it keeps).
void UciEngine::cmd_isready() {
  if (!search_->busy()) {
    if (!ensure_evaluator() && evaluator_ && weights_error_.empty()) emit("info string net: " + net_description_);
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
// True when it built a net now (and said which).
bool UciEngine::ensure_evaluator() {
  if (!evaluator_dirty_) return false;
  evaluator_dirty_ = false;
  xqzero::EvaluatorConfig ec = config_.evaluator();
  ec.set_cache_entries(hash_split().cache_entries);  // the cache's share of Hash
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
    return true;
  } catch (const std::exception& e) {
    weights_error_ = "cannot load WeightsFile '" + clip(weights) + "': " + clip_echo(e.what(), weights) +
                     (evaluator_ ? "; keeping " + net_description_ : "; no net to play with");
  }
  return false;
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
  if (!has_value && o->type != "string" && o->type != "button") {
    emit("info string setoption: option '" + o->name + "' needs a value");
    return;
  }
  make_idle();
  const std::string why = o->set(value);
  if (!why.empty()) {
    emit("info string setoption: " + o->name + " " + why);
    return;
  }
  if (o->name == "Clear Hash") {  // the kept trees and the evaluator's cache are forgotten
    search_->clear_trees();
    if (evaluator_) evaluator_->clear_cache();
    return;
  }
  if (!o->path.empty()) training::apply_setting(config_, o->path + "=" + o->value);  // range checked by set()
  if (o->evaluator || o->name == "Threads" || o->name == "Hash" || o->path == "search.leaves_per_batch")
    evaluator_dirty_ = true;
}

HashSplit UciEngine::hash_split() const {
  const Option* hash = nullptr;
  for (const Option& o : options_)
    if (o.name == "Hash") hash = &o;
  const xqzero::EvaluatorConfig& ec = config_.evaluator();
  return split_hash(hash->integer(), ec.cache_entries(), !nn::is_uniform_weights(ec.weights()));
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
  const GoRequest r = parse_go(words, game_.position());
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
  s.search.max_tree_bytes = hash_split().tree_bytes;
  s.search.search_moves = r.search_moves;
  std::vector<std::string> notes;
  const SearchLimits limits = go_limits(r, game_.side_to_move(), find_option("Move Overhead")->integer(), notes);
  for (const std::string& note : notes) emit("info string " + note);
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
