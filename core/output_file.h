// Writing a file so that a reader sees its old contents or its new ones, never a part, even
// after a crash or kill -9: the data go to "<path>.tmp", which is fsynced, renamed over the
// path, and the directory is fsynced so that the rename itself survives a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xq {

// Writes the concatenation of `parts` to `path` as above. Throws FileError (core/input_file.h)
// "<what> '<file>': <why>" naming the file that failed; the temporary file is removed then.
void replace_file(const std::string& path, const std::vector<std::string_view>& parts, const std::string& what);

}  // namespace xq
