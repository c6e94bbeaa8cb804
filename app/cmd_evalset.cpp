// xqzero evalset FILE [--config F] [--model CKPT|uniform] [--device D] [--visits N] [--threads N]:
// a net scored on a labelled position set (app/analyse/evalset.h, docs/analysis.md).
#include <algorithm>
#include <ostream>

#include "app/analyse/evalset.h"
#include "app/args.h"
#include "app/commands.h"
#include "app/config_file.h"
#include "core/input_file.h"
#include "nn/evaluator_factory.h"
#include "selfplay/selfplay_config.h"

namespace xq::app {

int cmd_evalset(const std::vector<std::string>& argv, std::ostream& out, std::ostream&) {
  const Args args(argv, {"config", "model", "device", "threads", "visits", "set"}, {});
  if (args.help()) {
    out << "usage: xqzero evalset FILE [--config F] [--model CKPT|uniform] [--device D] [--visits N] [--threads N]\n"
           "Scores a net on a labelled position set: FEN<TAB>best move (ICCS)[<TAB>score in centipawns\n"
           "for the side to move], one per line (docs/evalset-fsf.tsv is one). Reports how often the\n"
           "policy's and the search's best 1 and 3 moves contain the reference move, how often the\n"
           "value's sign agrees with the score's (|score| >= 100), and W/D/L by score bucket.\n"
           "  --visits N    0 (default): the raw network; N > 0: also a search of N visits\n"
           "  --threads N   positions scored at once (default 4)\n"
           "  --config F, --model CKPT, --device D, --set S.F=V: as for xqzero analyse\n";
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError("evalset needs one FILE");
  const std::string path = args.positional()[0];
  const ModelConfig setup = load_model_config(args);
  const xqzero::Config& config = setup.config;
  const std::string& model = setup.model;
  const auto set = analyse::parse_evalset(read_file(path, size_t(64) << 20, "evalset"), path);

  analyse::EvalsetOptions options;
  options.visits = int(args.get_int("visits", 0, 0, 1000000));
  options.threads = int(args.get_int("threads", 4, 1, 1024));
  options.leaves_per_round = config.search().leaves_per_batch();
  options.search = selfplay::search_params(config.search());
  const auto evaluator =
      nn::make_weights_evaluator(model, config.evaluator(), options.threads * options.leaves_per_round);
  out << "net " << model << "\n" << analyse::format_report(analyse::score_evalset(set, *evaluator, options));
  return 0;
}

}  // namespace xq::app
