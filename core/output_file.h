// Writing a file so that a reader sees its old contents or its new ones, never a part, even
// after a crash or kill -9: the data go to a temporary name of this writer's own
// ("<path>.tmp.<pid>.<n>"), which is fsynced, renamed over the path (or linked to it, for a
// file that must not exist yet), and the directory is fsynced so that the rename survives.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xq {

// Writes the concatenation of `parts` to `path` as above. Throws FileError (core/input_file.h)
// "<what> '<file>': <why>" naming the file that failed; the temporary file is removed then.
void replace_file(const std::string& path, const std::vector<std::string_view>& parts, const std::string& what);

// Creates `path` with the concatenation of `parts`, whole or not at all, and only if no file of
// that name exists (written to a private temporary name, synced, then hard-linked to `path`,
// which fails when the name is taken, even by a concurrent writer). Returns false, writing
// nothing, when `path` exists; throws FileError for any other failure.
bool create_file(const std::string& path, const std::vector<std::string_view>& parts, const std::string& what);

}  // namespace xq
