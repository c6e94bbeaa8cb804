// xqzero match --a P --b P --games N [--openings FILE] [--nodes N | --movetime MS] [--a-limit L] ...
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "records/record_writer.h"
#include "selfplay/match.h"
#include "training/player_factory.h"

namespace xq::app {

namespace {
std::atomic<bool> g_match_stop{false};
extern "C" void on_match_signal(int) {
  if (g_match_stop) std::_Exit(130);  // the second signal: at once
  g_match_stop = true;
}
}  // namespace

namespace {

// "Name=Value,Name=Value" -> pairs.
std::vector<std::pair<std::string, std::string>> parse_engine_options(const std::string& text, const char* flag) {
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(std::string("option ") + flag + ": expected Name=Value, got '" + item + "'");
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

bool is_uci_spec(const std::string& spec) { return spec.rfind("uci:", 0) == 0; }
bool ignores_limits(const std::string& spec) { return spec == "random" || spec == "greedy"; }
bool is_mcts_spec(const std::string& spec) { return !is_uci_spec(spec) && !ignores_limits(spec); }

// --a-limit / --b-limit: that player's own limits, replacing --nodes/--movetime for it.
std::optional<selfplay::MoveLimits> player_limits(const std::string& which, const Args& args) {
  const std::string flag = which + "-limit";
  if (!args.has(flag)) return std::nullopt;
  const std::string text = args.get(flag);
  selfplay::MoveLimits limits;
  try {
    limits = selfplay::parse_move_limits(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError("option --" + flag + ": " + e.what());
  }
  if (limits.depth > 0 && is_mcts_spec(args.get(which)))
    throw UsageError("option --" + flag + " '" + text + "': depth is for uci: players (" + args.get(which) +
                     " searches by nodes or movetime)");
  return limits;
}

// Starts a uci: player's engine before the games. One that cannot start at all would forfeit
// every game and the result line would measure nothing (a mistyped or missing engine once
// read as 200 wins), so the match refuses, naming the engine and why. An engine that started
// and misbehaves later loses those games by forfeit and the match goes on.
void start_engine(const std::string& which, const Args& args, selfplay::Player& player) {
  auto* engine = dynamic_cast<selfplay::UciEnginePlayer*>(&player);
  if (!engine) return;
  const std::string started = engine->ensure_started();
  if (!started.empty())
    throw std::runtime_error("--" + which + " " + args.get(which) + ": " + started + "; no game was played");
}

// One line about a player before the games: its name, the limits it searches with, and for
// an engine (started by start_engine) the coordinates it speaks.
void describe_player(const std::string& which, const Args& args, selfplay::Player& player,
                     const selfplay::MoveLimits& limits, std::ostream& out) {
  auto* engine = dynamic_cast<selfplay::UciEnginePlayer*>(&player);
  out << "player " << which << ": " << player.name();
  if (!ignores_limits(args.get(which))) out << ", limits " << selfplay::to_string(limits);
  if (engine) out << ", " << engine->dialect();
  out << "\n";
}

std::unique_ptr<selfplay::Player> make_player(const std::string& which, const Args& args, const xqzero::Config& config,
                                              int concurrency, uint64_t seed) {
  const std::string spec = args.get(which);
  if (spec.empty()) throw UsageError("--" + which + " needs a player");
  if (!is_uci_spec(spec) && (args.has(which + "-options") || args.has(which + "-ranks-from-one")))
    throw UsageError("--" + which + "-options and --" + which + "-ranks-from-one are for uci: players");
  selfplay::UciEngineOptions o;
  if (is_uci_spec(spec)) {
    o.options = parse_engine_options(args.get(which + "-options"), ("--" + which + "-options").c_str());
    o.ranks_from_one = args.has(which + "-ranks-from-one");
    o.reply_margin_ms = args.get_int("reply-margin-ms", 2000, 0, 3600000);
    o.node_timeout_ms = args.get_int("node-timeout-ms", 60000, 1, 36000000);
    o.start_timeout_ms = args.get_int("start-timeout-ms", 10000, 1, 3600000);
    o.pass_stderr = args.has("engine-stderr");
  }
  try {
    return training::make_player(spec, config, concurrency, seed, o);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--" + which + " " + e.what());
  }
}

constexpr const char* kMatchHelp =
    "usage: xqzero match --a P --b P --games N [--openings FILE] [--nodes N | --movetime MS]\n"
    "                    [--a-limit LIST] [--b-limit LIST] ...\n"
    "A player P is a checkpoint file, net (the bundled net, nets/xqzero-default.xqz), uniform\n"
    "(search with uniform priors), random, greedy (one-ply material) or uci:COMMAND (an\n"
    "external UCI engine, run with /bin/sh -c).\n"
    "  --games N             games to play (colours alternate; default 2)\n"
    "  --openings FILE       one opening per line: FEN [moves ...], ICCS moves from the start,\n"
    "                        or 'startpos|fen F moves ...'; each is played with both colours\n"
    "  --nodes N             search visits per move (default 100); uci: engines get go nodes N\n"
    "  --movetime MS         thinking time per move instead\n"
    "  --a-limit LIST        player a's own limits, replacing --nodes/--movetime for it:\n"
    "                        nodes=N, depth=N, movetime=MS, comma-separated (the first\n"
    "                        reached ends the search); depth is for uci: players only\n"
    "  --b-limit LIST        the same for player b (e.g. --b-limit depth=1)\n"
    "  --concurrency K       games played at once (default 1)\n"
    "  --out FILE            write every game as text (moves in WXF and ICCS)\n"
    "  --records DIR         also write the games as game records (.rec.gz)\n"
    "  --config F            evaluator and search settings of checkpoint/uniform players\n"
    "                        (default: the embedded tiny config)\n"
    "  --set S.F=V           override one of its fields, e.g. --set search.gumbel_m=4 (repeatable)\n"
    "  --a-options LIST      setoption for a uci: player a, as Name=Value,Name=Value\n"
    "  --b-options LIST      the same for player b\n"
    "  --a-ranks-from-one    player a's engine numbers ranks 1..10 (also --b-ranks-from-one);\n"
    "                        automatic for engines that offer UCI_Variant xiangqi\n"
    "                        (Fairy-Stockfish), which is then selected\n"
    "  --reply-margin-ms MS  a uci: engine must answer within movetime + MS (default 2000)\n"
    "  --node-timeout-ms MS  ... or within MS when searching by nodes or depth (default 60000)\n"
    "  --start-timeout-ms MS ... and answer uci/isready within MS (default 10000)\n"
    "  --engine-stderr       let engines' stderr through (default: discarded)\n"
    "  --max-plies N         length cap: a longer game is an adjudicated draw (default 400)\n"
    "  --repetitions N       judge a repetition at the N-th recurrence (default 1)\n"
    "  --seed S              seed of the random choices (default 1)\n"
    "  --quiet               no line per player and per game\n"
    "Before the games, one line per player gives its name and limits, and for a uci: engine\n"
    "the move coordinates it speaks. An engine that does not start is an error (no game is\n"
    "played); one that misbehaves later (crash, exit, no reply, illegal move) loses that game\n"
    "by forfeit, with the reason in the game file, and the match goes on (it is restarted for\n"
    "the next game). The last line is the result: wins, draws and losses of player a, its\n"
    "score, the Elo difference with a 95% interval, and forfeits A/B when there were any.\n";

// The match settings of the command line (players' limits and openings included).
selfplay::MatchOptions match_options(const Args& args) {
  selfplay::MatchOptions options;
  options.games = args.get_int("games", 2, 1, 100000000);
  options.concurrency = int(args.get_int("concurrency", 1, 1, 256));
  options.seed = uint64_t(args.get_int("seed", 1, 0, INT64_MAX));
  options.limits.nodes = args.has("movetime") ? 0 : args.get_int("nodes", 100, 1, 1000000000);
  options.limits.movetime_ms = args.get_int("movetime", 0, 1, 86400000);
  options.game.length_cap = int(args.get_int("max-plies", 400, 0, 100000));
  options.game.repetitions = int(args.get_int("repetitions", 1, 1, 10));
  if (args.has("openings")) options.openings = selfplay::load_openings(args.get("openings"));
  options.a_limits = player_limits("a", args);
  options.b_limits = player_limits("b", args);
  return options;
}

}  // namespace

int cmd_match(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(argv,
                  {"a",
                   "b",
                   "games",
                   "openings",
                   "nodes",
                   "movetime",
                   "concurrency",
                   "out",
                   "records",
                   "config",
                   "a-options",
                   "b-options",
                   "reply-margin-ms",
                   "node-timeout-ms",
                   "start-timeout-ms",
                   "max-plies",
                   "repetitions",
                   "seed",
                   "a-limit",
                   "b-limit",
                   "set"},
                  {"a-ranks-from-one", "b-ranks-from-one", "engine-stderr", "quiet"});
  if (args.help()) {
    out << kMatchHelp;
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  if (!args.has("a")) throw UsageError("missing --a");
  if (!args.has("b")) throw UsageError("missing --b");
  if (args.has("nodes") && args.has("movetime")) throw UsageError("give --nodes or --movetime, not both");

  selfplay::MatchOptions options = match_options(args);
  const bool quiet = args.has("quiet");
  xqzero::Config config = load_config(args.get("config"), args.get_all("set"));
  auto a = make_player("a", args, config, options.concurrency, options.seed);
  auto b = make_player("b", args, config, options.concurrency, options.seed + 7919);
  start_engine("a", args, *a);
  start_engine("b", args, *b);
  if (!quiet) {
    describe_player("a", args, *a, options.limits_of_a(), out);
    describe_player("b", args, *b, options.limits_of_b(), out);
  }

  std::unique_ptr<std::ofstream> games_file;
  if (args.has("out")) {
    games_file = std::make_unique<std::ofstream>(args.get("out"));
    if (!*games_file) throw std::runtime_error("cannot write '" + args.get("out") + "'");
  }
  std::unique_ptr<records::RecordWriter> records;
  if (args.has("records")) records = std::make_unique<records::RecordWriter>(args.get("records"), "match", 1000);

  int64_t finished = 0;
  options.on_game = [&](const selfplay::GameOutcome& g) {
    ++finished;
    if (!quiet) {
      out << "game " << g.index + 1 << " (" << finished << "/" << options.games << " done): " << g.red << " (red) vs "
          << g.black << " (black): " << to_string(g.result) << " " << g.termination;
      if (!g.reason.empty()) out << " [" << g.reason << "]";
      out << ", " << g.moves.size() << " plies\n" << std::flush;
    }
    if (games_file) *games_file << format_game(g) << "\n" << std::flush;
    if (records) records->add(selfplay::to_game_record(g));
  };
  // SIGINT/SIGTERM: no new game starts, the games being played finish, and every finished
  // game is written and counted in the result line (a second signal ends it at once).
  g_match_stop = false;
  options.stop = &g_match_stop;
  std::signal(SIGINT, on_match_signal);
  std::signal(SIGTERM, on_match_signal);
  const selfplay::MatchResult r = selfplay::play_match(*a, *b, options);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (g_match_stop) out << "match: stopped after " << r.games.size() << " of " << options.games << " games\n";
  if (records) records->flush();
  if (games_file && !*games_file) err << "xqzero match: writing '" << args.get("out") << "' failed\n";
  out << "result: " << r.summary() << "\n";
  return 0;
}

}  // namespace xq::app
