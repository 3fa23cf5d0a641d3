#include "run/run_files.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>

#include "io/checkpoint.hpp"
#include "io/file_util.hpp"
#include "io/io_thread.hpp"
#include "io/run_identity.hpp"
#include "io/xdmf.hpp"
#include "run/stream_output.hpp"

namespace bouss {

namespace fs = std::filesystem;

namespace {

std::string canonical_name(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return path;
  const fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal().string() : c.string();
}

// Whether `path` is (or would be) a checkpoint of `stem`: STEM.checkpoint.<digits>.nc in
// STEM's folder, the folders compared canonically.
bool is_checkpoint_name(const std::string& path, const std::string& stem) {
  if (stem.empty()) return false;
  const fs::path file = canonical_name(path);
  const fs::path stem_file = canonical_name(stem + ".checkpoint.0.nc");
  return file.parent_path() == stem_file.parent_path() &&
         checkpoint_step_of(file.filename().string(), fs::path(stem).filename().string()).has_value();
}

// The run id a checkpoint carries ("" for none, or when it cannot be read).
std::string checkpoint_run_id(const std::string& path) {
  try {
    return IoThread::instance().call(
        [&] { return file_text_attribute(path, std::string("text.") + checkpoint_run_id_key); });
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

std::string checkpoint_stem(const Case& c) {
  if (!c.checkpoint.file.empty()) return c.checkpoint.file;
  const std::string out = c.output.streams.empty() ? std::string() : c.output.streams.front().file;
  if (out.empty()) return "output/" + c.name;
  if (out.size() > 3 && out.compare(out.size() - 3, 3, ".nc") == 0) return out.substr(0, out.size() - 3);
  return out;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa{}, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return canonical_name(a) == canonical_name(b);
}

SavedStreamFiles saved_stream_files(const std::function<std::string(const std::string&)>& text,
                                    const std::string& checkpoint_path, int k) {
  const SavedStreamFiles absolute{text(stream_checkpoint_key("output_path", k)),
                                  text(stream_checkpoint_key("output_partial", k))};
  const std::string file = text(stream_checkpoint_key("output_file", k));
  if (file.empty()) return absolute;
  const fs::path folder = fs::path(checkpoint_path).parent_path();
  const std::string partial = text(stream_checkpoint_key("partial_file", k));
  const SavedStreamFiles relative{(folder / file).lexically_normal().string(),
                                  partial.empty() ? std::string() : (folder / partial).lexically_normal().string()};
  const bool here = path_kind(relative.file) != PathKind::missing ||
                    (!relative.partial.empty() && path_kind(relative.partial) != PathKind::missing);
  return here || absolute.file.empty() ? relative : absolute;
}

std::string relative_to_checkpoint(const std::string& file, const std::string& checkpoint_path) {
  std::error_code ec;
  const fs::path to = fs::absolute(file, ec), from = fs::absolute(fs::path(checkpoint_path).parent_path(), ec);
  const fs::path r = to.lexically_normal().lexically_relative(from.lexically_normal());
  return r.empty() ? to.lexically_normal().string() : r.string();
}

RunFiles::RunFiles(const Case& c, bool checkpoints, const std::string& restart)
    : source_(c.source), initial_(c.initial.from ? c.initial.from->path : std::string()),
      stem_(checkpoints ? checkpoint_stem(c) : std::string()), restart_(restart) {
  for (std::size_t i = 0; i < c.output.streams.size(); ++i) {
    const OutputStream& s = c.output.streams[i];
    const std::string pointer = "/output/" + std::to_string(i) + "/file";
    outputs_.push_back({s.file, "the file of output stream " + std::to_string(i), pointer, ""});
    if (!s.fields.empty())
      sidecars_.push_back({xdmf_path_for(s.file), "the XDMF sidecar of output stream " + std::to_string(i), pointer, s.file});
  }
}

std::string RunFiles::where(const Written& w) const { return source_ + ": " + w.pointer + ": " + w.path; }

void RunFiles::refuse_clashes() const {
  std::vector<const Written*> written;
  for (const Written& w : outputs_) written.push_back(&w);
  for (const Written& w : sidecars_) written.push_back(&w);
  struct Input {
    std::string path, what;
  };
  std::vector<Input> inputs;
  if (!source_.empty() && path_kind(source_) == PathKind::regular) inputs.push_back({source_, "the case file"});
  if (!restart_.empty()) inputs.push_back({restart_, "the checkpoint this run restarts from"});
  if (!initial_.empty()) inputs.push_back({initial_, "the file its initial state comes from (initial.from)"});
  const std::string never = ": a run never writes over its inputs, whatever --overwrite says; choose another file";
  // A checkpoint of this run's own stem as its initial state: the run's checkpoints (or
  // --overwrite's removal of an earlier run's) would replace or delete it.
  if (!initial_.empty() && !stem_.empty() && is_checkpoint_name(initial_, stem_))
    throw CaseError(source_ + ": /initial/from: " + initial_ + " is a name of this run's checkpoints (" + stem_ +
                    ".checkpoint.<step>.nc), which the run writes and --overwrite removes" + never +
                    " (copy it elsewhere, or give the run another checkpoint.file)");
  for (const Written* w : written) {
    for (const Input& in : inputs)
      if (same_file(w->path, in.path))
        throw CaseError(where(*w) + " (" + w->what + ") is " + in.what + ", " + in.path + never);
    if (is_checkpoint_name(w->path, stem_))
      throw CaseError(where(*w) + " (" + w->what + ") is a name of this run's checkpoints (" + stem_ +
                      ".checkpoint.<step>.nc): choose another file, or another checkpoint.file");
    for (const Written* other : written)
      if (other < w && same_file(w->path, other->path))
        throw CaseError(where(*w) + " (" + w->what + ") is also " + other->what + ", " + other->path +
                        (other->path == w->path ? "" : " (the same file by another name)") +
                        ": give each stream a file of its own");
  }
}

namespace {
CaseError held_by_another_run(const std::string& refusal, const std::string& holder) {
  return CaseError(refusal + " is being written by another live run (" + holder +
                   "): two runs may not write the same files; let it end, or give this run other files "
                   "(--output NEW.nc)");
}
}  // namespace

std::vector<std::pair<std::string, std::string>> RunFiles::locks() const {
  std::vector<std::pair<std::string, std::string>> out;
  // Through a symbolic link the file written is the link's target: claimed by that name.
  for (const Written& w : outputs_) out.emplace_back(canonical_name(w.path) + ".lock", where(w));
  if (!stem_.empty())
    out.emplace_back(canonical_name(stem_) + ".checkpoint.lock",
                     source_ + ": /checkpoint: " + stem_ + ".checkpoint.<step>.nc");
  return out;
}

void RunFiles::claim() {
  std::vector<FileClaim> held;
  for (const auto& [lock, refusal] : locks()) {
    std::string holder;
    std::optional<FileClaim> c;
    try {
      c = FileClaim::try_claim(lock, &holder);
    } catch (const std::exception& e) {
      throw CaseError(refusal + ": " + e.what());
    }
    if (!c) throw held_by_another_run(refusal, holder);
    held.push_back(std::move(*c));
  }
  claims_ = std::move(held);
}

void RunFiles::refuse_live_claims() const {
  for (const auto& [lock, refusal] : locks())
    if (const auto holder = FileClaim::holder(lock)) throw held_by_another_run(refusal, *holder);
}

std::vector<std::string> RunFiles::earlier_checkpoints(const std::string& run_id, bool own_legacy) const {
  std::vector<std::string> earlier;
  if (stem_.empty()) return earlier;
  for (const std::string& path : checkpoints_of(stem_)) {
    if (!restart_.empty() && same_file(path, restart_)) continue;  // the one it continues
    const std::string id = checkpoint_run_id(path);
    const bool own = !run_id.empty() && (id == run_id || (id.empty() && own_legacy));
    if (!own) earlier.push_back(path);
  }
  return earlier;
}

void RunFiles::refuse_earlier(bool overwrite, const std::vector<std::string>& continued, const std::string& run_id,
                              bool own_legacy) const {
  if (overwrite) return;
  const std::string ask = ": pass --overwrite (or \"overwrite\": true in the case) to replace what the earlier run "
                          "left, or give this run other files (--output NEW.nc)";
  const auto is_continued = [&](const std::string& path) {
    for (const std::string& c : continued)
      if (same_file(c, path)) return true;
    return false;
  };
  for (const Written& w : outputs_)
    if (path_kind(w.path) != PathKind::missing && !is_continued(w.path))
      throw CaseError(where(w) + " exists, an earlier run's output" + ask);
  for (const Written& w : sidecars_)
    if (path_kind(w.path) != PathKind::missing && !is_continued(w.data))
      throw CaseError(where(w) + " exists, an earlier run's XDMF sidecar" + ask);
  const std::vector<std::string> earlier = earlier_checkpoints(run_id, own_legacy);
  if (!earlier.empty())
    throw CaseError(source_ + ": /checkpoint: " + earlier.front() +
                    (earlier.size() > 1 ? " and " + std::to_string(earlier.size() - 1) + " more exist, an earlier run's checkpoints"
                                        : " exists, an earlier run's checkpoint") +
                    " of the stem " + stem_ + ask);
}

void RunFiles::remove_earlier_checkpoints(const std::string& run_id, bool own_legacy) const {
  for (const std::string& path : earlier_checkpoints(run_id, own_legacy)) {
    std::error_code ec;
    fs::remove(path, ec);
    if (ec) throw std::runtime_error("cannot remove the earlier run's checkpoint " + path + " (--overwrite): " + ec.message());
  }
}

std::vector<std::string> RunFiles::remove_killed_checkpoint_partials() const {
  std::vector<std::string> removed;
  if (stem_.empty() || claims_.empty()) return removed;  // only under this run's claim of the stem
  const fs::path stem(stem_);
  const fs::path folder = stem.has_parent_path() ? stem.parent_path() : fs::path(".");
  const std::string prefix = stem.filename().string() + ".checkpoint.", suffix = ".partial";
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    // STEM.checkpoint.<step>.nc.<pid>.partial (partial_path of a checkpoint's name)
    const std::string name = it->path().filename().string();
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string without = name.substr(0, name.size() - suffix.size());
    const std::size_t dot = without.rfind('.');
    if (dot == std::string::npos || dot + 1 == without.size() ||
        without.find_first_not_of("0123456789", dot + 1) != std::string::npos ||
        !checkpoint_step_of(without.substr(0, dot), stem.filename().string()))
      continue;
    std::error_code ec;
    if (fs::remove(it->path(), ec)) removed.push_back(it->path().string());
  }
  return removed;
}

}  // namespace bouss
