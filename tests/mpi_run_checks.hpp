// `mpirun -np N bouss run` from tests (the physics suite on CPU ranks, the gpu suite on
// CUDA): a small convection run and the comparison of its files.
#pragma once

#include <gtest/gtest.h>
#include <netcdf.h>
#include <sys/wait.h>

#include <sys/types.h>

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <string>
#include <vector>

#include "netcdf_compare.hpp"
#include "process.hpp"
#include "scratch_dir.hpp"

namespace bouss::test {

#define BOUSS_MPI_OR_SKIP() \
  if (mpirun_launcher(1).empty()) GTEST_SKIP() << "this build has no MPI"

struct Finished {
  int status = -1;
  std::string out, err;
  bool ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
  int code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

// `bouss run` of a small convection case to t = 2 (T, u, v, w and p every 0.5, the
// profiles, the series, a checkpoint every 1; and time means over every 0.8 of T, w_c, the
// profiles and the covariance of w_c and T, TAG_means.nc, and of T and its variance on a y
// plane, TAG_plane.nc, so that a checkpoint falls inside a window; and T, w and u_c in float,
// compressed, TAG_float.nc) on `ranks` ranks (0:
// without mpirun), with the extra arguments, on the backend.
inline Finished run_case(const ScratchDir& dir, const std::string& tag, int ranks, std::vector<std::string> extra = {},
                         const std::string& backend = "cpu") {
  std::vector<std::string> args = {"run", source_path("cases/rayleigh_benard.json"), "--progress", "0",
                                   "--set", "grid.n=[32,16,16]", "--set", "grid.extent=[[0,4],[0,2],[0,1]]",
                                   "--set", "physics.rayleigh=1e6", "--set", "time.end=2",
                                   "--set", "output=[{\"file\": \"" + dir.file(tag + ".nc") +
                                                "\", \"interval\": 0.5, \"fields\": [\"T\", \"u\", \"v\", \"w\", \"p\"]}, "
                                                "{\"file\": \"" + dir.file(tag + "_profiles.nc") + "\", \"interval\": 0.5, \"profiles\": true}, "
                                                "{\"file\": \"" + dir.file(tag + "_means.nc") + "\", \"interval\": 0.8, \"fields\": [\"T\", \"w_c\"], "
                                                "\"profiles\": true, \"average\": {\"moments\": [\"w_c*T\"]}}, "
                                                "{\"file\": \"" + dir.file(tag + "_plane.nc") + "\", \"interval\": 0.8, \"fields\": [\"T\"], "
                                                "\"region\": {\"y\": 0.9}, \"average\": {\"every_steps\": 2, \"moments\": [\"T*T\"]}}, "
                                                "{\"file\": \"" + dir.file(tag + "_float.nc") + "\", \"interval\": 0.5, \"fields\": [\"T\", \"w\", \"u_c\"], "
                                                "\"precision\": \"float\", \"compression\": {\"deflate\": 1}}]",
                                   "--set", "checkpoint.interval=1", "--set", "checkpoint.keep=5", "--backend", backend};
  args.insert(args.end(), extra.begin(), extra.end());
  BoussProcess p(args, dir.file(tag + ".out"), dir.file(tag + ".err"), ranks ? mpirun_launcher(ranks) : std::vector<std::string>{});
  Finished f;
  f.status = p.wait();
  f.out = p.out();
  f.err = p.err();
  return f;
}

// The largest difference between two files' variables over each one's largest value (the
// fields T, u, v, w, p, or with no names every variable of the first file).
inline double relative_difference(const std::string& a, const std::string& b, std::vector<std::string> names = {"T", "u", "v", "w", "p"}) {
  const auto va = read_variables(a), vb = read_variables(b);
  if (names.empty())
    for (const auto& [name, values] : va) names.push_back(name);
  if (names.empty()) return INFINITY;
  double worst = 0;
  for (const std::string& name : names) {
    const auto ia = va.find(name), ib = vb.find(name);
    if (ia == va.end() || ib == vb.end() || ia->second.size() != ib->second.size()) return INFINITY;
    double scale = 0, diff = 0;
    for (std::size_t i = 0; i < ia->second.size(); ++i) {
      scale = std::max(scale, std::abs(ia->second[i]));
      diff = std::max(diff, std::abs(ia->second[i] - ib->second[i]));
    }
    worst = std::max(worst, diff / (scale > 0 ? scale : 1));
  }
  return worst;
}

// mpirun of `ranks` ranks, each under a file size limit of `kib` KiB (ulimit -f: a write past
// it fails as a full disk's does, SIGXFSZ ignored), TCP between the ranks (Open MPI's
// shared-memory files would meet the limit first).
inline std::vector<std::string> mpirun_with_file_size_limit(int ranks, int kib) {
  std::vector<std::string> launcher = mpirun_launcher(ranks);
  launcher.insert(launcher.end(), {"--mca", "btl", "self,tcp", "bash", "-c",
                                   "trap '' XFSZ; ulimit -f " + std::to_string(kib) + "; exec \"$0\" \"$@\""});
  return launcher;
}

// The pid of the process of rank `rank` of a running mpirun job whose ranks run `bouss` with
// `mark` among their arguments (a path of the test's own: ctest runs other jobs beside it),
// found by the rank Open MPI puts in each one's environment; -1 when there is none yet.
inline pid_t rank_pid(int rank, const std::string& mark) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = slurp(entry.path().string() + "/cmdline");
    if (cmdline.find(bouss_exe()) != 0 || cmdline.find(mark) == std::string::npos) continue;
    const std::string env = slurp(entry.path().string() + "/environ");
    if (env.find(std::string("OMPI_COMM_WORLD_RANK=") + std::to_string(rank) + '\0') != std::string::npos)
      return pid_t(std::stol(name));
  }
  return -1;
}

inline std::string text_attribute(const std::string& path, const char* name) {
  int nc = 0;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return "";
  std::size_t len = 0;
  std::string value;
  if (nc_inq_attlen(nc, NC_GLOBAL, name, &len) == NC_NOERR) {
    value.resize(len);
    nc_get_att_text(nc, NC_GLOBAL, name, value.data());
  }
  nc_close(nc);
  return value;
}
inline int int_attribute(const std::string& path, const char* name) {
  int nc = 0, value = -1;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return -1;
  nc_get_att_int(nc, NC_GLOBAL, name, &value);
  nc_close(nc);
  return value;
}

}  // namespace bouss::test
