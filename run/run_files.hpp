// The files of a run (docs/runs.md, "The files of a run"): what it reads (its case file, the
// checkpoint it restarts from) and what it writes under its names (each output stream's
// file and XDMF sidecar, and its checkpoints STEM.checkpoint.<step>.nc). Before anything is
// allocated, the run driver (run/run.cpp) asks, in this order:
//   refuse_clashes    an output that is an input of the run, another stream's file, or one of
//                     the run's checkpoint names, compared by identity (device and inode, or
//                     the canonical path), not by spelling: refused whatever --overwrite says;
//   claim             each output file and the checkpoint stem claimed for the run's life
//                     (io/file_claim.hpp): a second live run writing the same names is refused;
//   refuse_earlier    files an earlier run left under those names: refused unless the run may
//                     overwrite them (--overwrite, "overwrite": true); the files a restart
//                     continues and the checkpoints of its own run (io/run_identity.hpp) are
//                     no earlier run's;
//   remove_earlier_checkpoints   with overwrite: the earlier run's checkpoints of the stem,
//                     which could not continue this run's files, are removed.
//   remove_killed_checkpoint_partials   a killed run's half-written checkpoints of the stem
//                     (a checkpoint of a large run is tens of GiB), removed.
// Each refusal is one CaseError line (exit 2). Only the writer rank touches files.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/case.hpp"
#include "io/file_claim.hpp"

namespace bouss {

// The stem a run's checkpoints are named after (STEM.checkpoint.<step>.nc): checkpoint.file,
// else the first output file's path without ".nc", else "output/<name>" (where the case's
// output would go): every run has a home for the checkpoints a signal or a wall-clock limit
// asks for, output or not.
std::string checkpoint_stem(const Case& c);

// Whether two paths name one file: the same device and inode when both exist, else the same
// canonical path (symbolic links and "..", resolved as far as the path exists).
bool same_file(const std::string& a, const std::string& b);

// The files that stream `k` of the run that wrote a checkpoint wrote: its output file and the
// partial file it was writing. A checkpoint records both relative to its own folder (text
// keys "output_file" and "partial_file"; ".K" for K > 0), so that a run's folder moved or
// copied whole keeps its checkpoints and files together, and as absolute paths
// ("output_path", "output_partial"): the relative pair when either of its files exists,
// else the absolute one (a checkpoint copied away from its run's folder, or written before
// the relative keys). Empty when the checkpoint has no such stream. `text` looks a key of
// Checkpoint::text up ("" when missing).
struct SavedStreamFiles {
  std::string file, partial;
};
SavedStreamFiles saved_stream_files(const std::function<std::string(const std::string&)>& text,
                                    const std::string& checkpoint_path, int k);
// The same key, relative, for a checkpoint about to be written at `checkpoint_path`.
std::string relative_to_checkpoint(const std::string& file, const std::string& checkpoint_path);

class RunFiles {
 public:
  // The files of case c's run; `checkpoints`: whether the run may write checkpoints (a
  // schedule, signals or a wall-clock limit); `restart`: the checkpoint it continues ("" for
  // none).
  RunFiles(const Case& c, bool checkpoints, const std::string& restart);

  void refuse_clashes() const;
  void claim();
  // What claim() would refuse (another live run holding a name), without claiming or creating
  // anything: bouss check.
  void refuse_live_claims() const;
  // `continued`: the output files a restart continues; `run_id`: this run's id; `own_legacy`:
  // checkpoints without a run id count as this run's (a restart from such a checkpoint,
  // written before runs had ids, cannot tell).
  void refuse_earlier(bool overwrite, const std::vector<std::string>& continued, const std::string& run_id,
                      bool own_legacy) const;
  // The checkpoints of the stem that are not this run's (as refuse_earlier tells them).
  std::vector<std::string> earlier_checkpoints(const std::string& run_id, bool own_legacy) const;
  void remove_earlier_checkpoints(const std::string& run_id, bool own_legacy) const;
  // After claim(): the partial files of checkpoints of the stem (STEM.checkpoint.<step>.nc.<pid>.partial)
  // that a killed run left, removed (no live run writes the stem while this one holds its
  // claim); their paths.
  std::vector<std::string> remove_killed_checkpoint_partials() const;
  // Lets go of every claim (the destructor does too).
  void release() { claims_.clear(); }

  const std::string& stem() const { return stem_; }  // "" when the run writes no checkpoint

 private:
  struct Written {
    std::string path;
    std::string what;      // "the file of output stream 0", "its XDMF sidecar", ...
    std::string pointer;   // the case's JSON path, for the message
    std::string data;      // a sidecar's: the stream's file it describes
  };
  std::string source_;  // the case file, for messages
  std::string initial_;  // the file the run's initial state comes from (initial.from), or ""
  std::string stem_;
  std::string restart_;
  std::vector<Written> outputs_;   // each stream's file
  std::vector<Written> sidecars_;  // FILE.xdmf2 of a stream with fields
  std::vector<FileClaim> claims_;
  std::string where(const Written& w) const;
  // Each name's lock file (io/file_claim.hpp) and the refusal's start when it is held.
  std::vector<std::pair<std::string, std::string>> locks() const;
};

}  // namespace bouss
