// xqzero export CKPT OUT [--note TEXT]: a checkpoint's weights alone, as nets/ ships them.
#include <filesystem>
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "nn/checkpoint_export.h"
#include "nn/net_config.h"

namespace xq::app {

int cmd_export(const std::vector<std::string>& argv, std::ostream& out, std::ostream&) {
  const Args args(argv, {"note"}, {});
  if (args.help()) {
    out << "usage: xqzero export CKPT OUT [--note TEXT]\n"
           "Writes the weights, architecture and step of checkpoint CKPT to a new file OUT, without\n"
           "the trainer's optimiser and RNG state (about half the size): the form of the bundled\n"
           "net in nets/. OUT must not exist. --note replaces the checkpoint's note.\n";
    return 0;
  }
  if (args.positional().size() != 2) throw UsageError("export needs CKPT and OUT");
  const std::string& from = args.positional()[0];
  const std::string& to = args.positional()[1];
  const xqzero::CheckpointMeta meta = nn::export_weights(from, to, args.get("note"));
  out << "export: wrote " << to << " (" << nn::short_name(meta.network()) << ", step " << meta.step() << ", "
      << std::filesystem::file_size(to) << " bytes)\n";
  return 0;
}

}  // namespace xq::app
