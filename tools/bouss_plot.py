#!/usr/bin/python3
"""Pictures from bouss output files (`bouss plot`; docs/plotting.md).

Run through `bouss plot ...`, which execs `/usr/bin/python3 tools/bouss_plot.py ...`, or
directly. Needs python3-xarray, python3-matplotlib and python3-netcdf4 (tools/setup.sh
installs them). Draws with matplotlib's Agg backend: no display is needed.

Coordinates are found the CF way: each dimension of a field has a coordinate variable of the
same name whose `axis` attribute (X, Y, Z) names the axis (or, without one, its name: x and
y carry none, since ParaView takes axis X/Y for longitude/latitude), and a face coordinate carries
`c_grid_axis_shift` (docs/output.md). So a slice of w, on (time, zf, y, x), at z = 0.5 cuts
the nearest z face, and the picture says which.
"""
import argparse
import json
import math
import os
import sys
import textwrap

PROG = "bouss plot"
AXES = "xyz"
# Velocities are drawn with a diverging map centred on zero; the temperature with a false
# colour map, as in paper 004's Figure 6.
VELOCITIES = {"u", "v", "w", "u_c", "v_c", "w_c"}
# The five Nusselt estimates (docs/output.md): the plates, the volume, the exact relations.
NUSSELT = ["nusselt_bottom", "nusselt_top", "nusselt_volume", "nusselt_kinetic_dissipation", "nusselt_thermal_dissipation"]
PROFILE_PANELS = [["T_mean"], ["T_rms"], ["u_rms", "v_rms", "w_rms"], ["wT_mean"]]


class PlotError(Exception):
    """Bad input: printed as one line, exit code 2."""


def fail(message, code=2):
    print(f"bouss: error: plot: {message}", file=sys.stderr)
    sys.exit(code)


class Parser(argparse.ArgumentParser):
    """`bouss plot --help` in the layout of the other commands' help (tools/main.cpp's
    HelpFormatter, CLI11's sections): the description, "Usage: bouss plot [OPTIONS] file",
    "Positionals:" and "Options:", each flag with its metavar in a column of 30, its
    description wrapped to 100 columns and ending with "(default X)" where it has a default."""

    WIDTH, COLUMN = 100, 30

    def error(self, message):
        fail(f"{message} (bouss plot --help lists its options)")

    def format_usage(self):
        return f"Usage: {self.prog} [OPTIONS] file\n"

    @classmethod
    def _wrap(cls, text, room):
        lines = []
        for paragraph in text.split("\n"):
            lines += [paragraph] if len(paragraph) <= room else textwrap.wrap(
                paragraph, room, break_long_words=False, break_on_hyphens=False)
        return lines

    @classmethod
    def _row(cls, name, description):
        name = "  " + name
        lines = cls._wrap(description, cls.WIDTH - cls.COLUMN)
        if len(name) >= cls.COLUMN:
            out = [name]
        else:
            out = [name.ljust(cls.COLUMN) + (lines.pop(0) if lines else "")]
        return "\n".join(out + [" " * cls.COLUMN + line for line in lines]).rstrip() + "\n"

    def format_help(self):
        out = "\n".join(self._wrap(self.description, self.WIDTH)) + "\n" + self.format_usage()
        out += "\nPositionals:\n"
        for a in self._actions:
            if not a.option_strings:
                out += self._row(f"{a.dest} TEXT REQUIRED", a.help)
        out += "\nOptions:\n"
        for a in self._actions:
            if not a.option_strings:
                continue
            name = ",".join(sorted(a.option_strings, key=len))  # -o,--output, as CLI11 writes it
            if isinstance(a, argparse._HelpAction):
                out += self._row(name, "Print this help message and exit")
                continue
            if a.nargs != 0:
                name += " " + (a.metavar or {int: "N", float: "X"}.get(a.type, "TEXT"))
            help = a.help[:1].upper() + a.help[1:]
            if a.default not in (None, False, argparse.SUPPRESS):
                help += f" (default {a.default})"
            out += self._row(name, help)
        return out + "\n" + self.epilog + "\n"


def parse_args(argv):
    p = Parser(
        prog=PROG,
        description="Pictures from a bouss output file (NetCDF): a slice of a field (the default), the "
        "diagnostics series (--series), the horizontally averaged profiles (--profiles), one "
        "picture per record for an animation (--frames DIR), or a list of what the file holds (--list); "
        "one of them at a time",
        epilog="""Examples:
  bouss plot out/rb.nc --field T --plane z=0.5 --output T_mid.png     horizontal slice, last record
  bouss plot out/rb.nc --field w --plane y=1 --time 30                vertical slice of w at t = 30
  bouss plot out/rb.nc --series --diagnostics kinetic_energy,nusselt_bottom+nusselt_top
  bouss plot out/rb.nc --profiles --time 50
  bouss plot out/rb.nc --frames frames/ --field T --plane y=1
  ffmpeg -framerate 10 -i frames/T_%05d.png -c:v libx264 -pix_fmt yuv420p T.mp4

Times and planes pick the nearest record and the nearest cell (or face, for a field on
faces: w at z = 0.5 is drawn at the nearest zf). Bad input gets one line
"bouss: error: ..." and exit code 2. docs/plotting.md has the details.""",
    )
    p.add_argument("file", metavar="FILE", help="A bouss output file (NetCDF)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--series", action="store_true", help="the diagnostics series against time, one panel per quantity")
    mode.add_argument("--profiles", action="store_true", help="the horizontally averaged profiles against z")
    mode.add_argument("--frames", metavar="DIR", help="one slice per record into DIR/FIELD_00000.png, ...")
    mode.add_argument("--list", action="store_true", help="print the fields, records, diagnostics and profiles the file holds")
    p.add_argument("--output", "-o", metavar="PNG",
                   help="the picture to write (default: in the current folder, STEM_FIELD_PLANE_tTIME.png for a "
                   "slice, STEM_series.png, STEM_profiles.png)")
    p.add_argument("--field", "-f", metavar="FIELD", default="T", help="slice, frames: the field to draw")
    p.add_argument("--plane", metavar="AXIS=VALUE",
                   help="slice, frames: the plane, e.g. z=0.5 or y=1 (the nearest cell; default: the middle of y, a "
                   "vertical x-z slice as in paper 004's Figure 6; a plane file's one plane)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--time", "-t", type=float, metavar="T",
                      help="slice, profiles: the record nearest this time (default: the last record)")
    when.add_argument("--record", type=int, metavar="N", help="slice, profiles: record N (0 the first, -1 the last)")
    p.add_argument("--diagnostics", metavar="A,B+C",
                   help="series: the quantities, one panel each; '+' shares a panel (default: kinetic_energy and "
                   "the Nusselt numbers in one panel, those the file has with values)")
    p.add_argument("--variables", metavar="A,B+C",
                   help="profiles: the profiles, one panel each; '+' shares a panel "
                   "(default: T_mean, T_rms, u_rms+v_rms+w_rms, wT_mean, those the file has)")
    p.add_argument("--linear", action="store_true",
                   help="series: linear y axes (default: logarithmic for a positive quantity spanning over 3 decades)")
    p.add_argument("--cmap", metavar="NAME", help="slice, frames: a matplotlib colour map (default: RdYlBu_r for T, RdBu_r for "
                   "velocities, viridis otherwise)")
    p.add_argument("--vmin", type=float, metavar="V", help="slice, frames: the colour range's low end (default: the data's)")
    p.add_argument("--vmax", type=float, metavar="V", help="slice, frames: the colour range's high end (default: the data's; "
                   "frames use the range over all records, velocities one symmetric about 0)")
    p.add_argument("--dpi", type=int, metavar="N", default=100, help="dots per inch of the picture")
    p.add_argument("--json", action="store_true", help="print what was drawn (files, values' range, plane, time) as JSON")
    args = p.parse_args(argv)

    kind = "series" if args.series else "profiles" if args.profiles else "frames" if args.frames else \
        "list" if args.list else "slice"
    # Options that do not apply to the chosen picture are refused rather than ignored.
    applies = {
        "field": {"slice", "frames"}, "plane": {"slice", "frames"}, "time": {"slice", "profiles"},
        "record": {"slice", "profiles"}, "diagnostics": {"series"}, "variables": {"profiles"},
        "linear": {"series"}, "cmap": {"slice", "frames"}, "vmin": {"slice", "frames"},
        "vmax": {"slice", "frames"}, "output": {"slice", "series", "profiles"},
    }
    defaults = {"field": "T", "linear": False}
    for name, kinds in applies.items():
        value = getattr(args, name)
        if kind not in kinds and value is not None and value != defaults.get(name):
            flag = "--" + name
            what = "a slice" if kind == "slice" else "--" + kind
            fail(f"{flag} does not apply to {what} (it applies to: {', '.join(sorted(kinds))})")
    if args.dpi <= 0 or args.dpi > 1200:
        fail(f"--dpi expects 1 .. 1200, got {args.dpi}")
    if args.vmin is not None and args.vmax is not None and not args.vmin < args.vmax:
        fail(f"--vmin {args.vmin:g} must be below --vmax {args.vmax:g}")
    args.kind = kind
    return args


# ---------------------------------------------------------------------------------------------
# The file and its CF coordinates


def open_file(path):
    if not os.path.exists(path):
        raise PlotError(f"{path}: no such file")
    if os.path.isdir(path):
        raise PlotError(f"{path}: is a folder, not a NetCDF file")
    try:
        # Simulation time is plain numbers (no "since <date>"); keep every variable as stored.
        return xr.open_dataset(path, engine="netcdf4", decode_times=False, decode_timedelta=False)
    except Exception as e:  # xarray raises many kinds here; the reason goes on the one line
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise PlotError(f"{path}: not a NetCDF file xarray can read ({reason})")


def attr(var, name, default=""):
    return var.attrs.get(name, default)


def record_bounds(ds, rec, record):
    """The interval an averaged stream's record holds the means over (its time coordinate has
    CF bounds), as [start, end]; None for a snapshot."""
    bounds = attr(ds[rec], "bounds", "") if rec in ds.variables else ""
    if bounds and bounds in ds.variables:
        return [float(x) for x in ds[bounds].values[record]]
    return None


def record_time(ds, rec, record, t):
    """A record's time as a title says it: "t = 10", or "mean over t = 7.5 .. 10"."""
    b = record_bounds(ds, rec, record)
    return f"mean over t = {fmt(b[0])} .. {fmt(b[1])}" if b else f"t = {fmt(t)}"


def dim_axis(ds, dim):
    """(axis letter or None, whether the dimension is on cell faces) of a dimension, from its
    coordinate variable's CF attributes, else from the name (x, xf, ...)."""
    if dim in ds.variables:
        a = str(attr(ds[dim], "axis", "")).lower()
        if len(a) == 1 and a in AXES:
            return a, "c_grid_axis_shift" in ds[dim].attrs
    if len(dim) == 1 and dim in AXES:
        return dim, False
    if len(dim) == 2 and dim[0] in AXES and dim[1] == "f":
        return dim[0], True
    return None, False


def record_dim(ds):
    if "time" in ds.dims:
        return "time"
    for d in ds.dims:
        if d in ds.variables and str(attr(ds[d], "axis", "")).upper() == "T" and d not in (
                "diagnostic_time", "profile_time"):
            return d
    return None


def fields_of(ds):
    """Names of the snapshot fields: variables on the record dimension and at least two space axes."""
    rec = record_dim(ds)
    out = []
    for name, var in ds.data_vars.items():
        if rec is None or var.dims[:1] != (rec,):
            continue
        if sum(dim_axis(ds, d)[0] is not None for d in var.dims[1:]) >= 2:
            out.append(name)
    return out


def series_of(ds, dim):
    return [n for n, v in ds.data_vars.items() if v.dims[:1] == (dim,) and n != dim]


def case_extent(ds):
    """The domain from the case JSON the file carries, [[x0, x1], [y0, y1], [z0, z1]], or None."""
    try:
        return json.loads(ds.attrs["case_json"])["grid"]["extent"]
    except Exception:
        return None


def coordinate(ds, dim, n):
    if dim in ds.variables and ds[dim].size == n:
        return ds[dim].values.astype(float)
    return [float(i) for i in range(n)]


def axis_extent(ds, axis):
    """(lo, hi) of the domain along an axis: the case's extent, else the face coordinate's
    ends, else the centres' ends widened by half a cell."""
    ext = case_extent(ds)
    if ext is not None:
        try:
            lo, hi = (float(v) for v in ext[AXES.index(axis)])
            return lo, hi
        except Exception:
            pass
    faces = [d for d in ds.dims if dim_axis(ds, d) == (axis, True) and d in ds.variables]
    if faces and ds[faces[0]].size >= 2:
        f = ds[faces[0]].values
        return float(f[0]), float(f[-1])
    centres = [d for d in ds.dims if dim_axis(ds, d) == (axis, False) and d in ds.variables]
    if centres:
        c = ds[centres[0]].values.astype(float)
        h = (c[-1] - c[0]) / (len(c) - 1) if len(c) > 1 else 0.0
        return float(c[0] - h / 2), float(c[-1] + h / 2)
    return None


def plane_axes_of_file(ds):
    """Axes along which the file holds a single cell (a plane file, or a one-cell axis of a 2D run)."""
    return [a for a in AXES for d in ds.dims if dim_axis(ds, d) == (a, False) and ds.sizes[d] == 1]


def plane_cell(ds, axis):
    """(centre, half width) of the one cell a plane file holds along an axis; the width from the
    case's grid (grid.n and grid.extent), else from the two faces around it, else None."""
    dim = next(d for d in ds.dims if dim_axis(ds, d) == (axis, False) and ds.sizes[d] == 1)
    centre = coordinate(ds, dim, 1)[0]
    try:
        grid = json.loads(ds.attrs["case_json"])["grid"]
        i = AXES.index(axis)
        lo, hi = (float(v) for v in grid["extent"][i])
        return centre, (hi - lo) / int(grid["n"][i]) / 2
    except Exception:
        pass
    for d in ds.dims:
        if dim_axis(ds, d) == (axis, True) and d in ds.variables and ds.sizes[d] == 2:
            f = ds[d].values.astype(float)
            return centre, abs(f[1] - f[0]) / 2
    return centre, None


def edges(ds, dim, axis, face, n):
    """Cell edges for pcolormesh along one dimension: the faces for cell centres (when the file
    has them), else midway between the points, the ends half a spacing out."""
    if not face:
        for d in ds.dims:
            if dim_axis(ds, d) == (axis, True) and d in ds.variables and ds.sizes[d] == n + 1:
                return ds[d].values.astype(float)
    c = coordinate(ds, dim, n)
    if n == 1:
        lo_hi = axis_extent(ds, axis)
        return list(lo_hi) if lo_hi else [c[0] - 0.5, c[0] + 0.5]
    mids = [(c[i] + c[i + 1]) / 2 for i in range(n - 1)]
    return [c[0] - (mids[0] - c[0])] + mids + [c[-1] + (c[-1] - mids[-1])]


def fmt(x):
    return f"{x:.4g}"


def units_label(var):
    """' [m s-1]' for a dimensional unit; nothing for the '1' of a nondimensional file."""
    u = str(attr(var, "units", ""))
    return "" if u in ("", "1") else f" [{u}]"


def units_system_note(ds):
    s = str(ds.attrs.get("units_system", ""))
    return {"diffusive": " (diffusive units)", "free_fall": " (free-fall units)",
            "buoyancy": " (buoyancy units)"}.get(s, "")


def case_name(ds, path):
    return str(ds.attrs.get("title") or os.path.splitext(os.path.basename(path))[0])


def stem_of(path):
    return os.path.splitext(os.path.basename(path))[0]


# ---------------------------------------------------------------------------------------------
# Picking a record and a plane


def pick_record(times, args, what):
    """Index of the record nearest --time (or --record N; default the last)."""
    n = len(times)
    if n == 0:
        raise PlotError(f"the file holds no {what} records")
    if args.record is not None:
        if not -n <= args.record < n:
            raise PlotError(f"--record {args.record}: the file holds {n} {what} records (0 .. {n - 1}, or -1 for the last)")
        return args.record % n
    if args.time is None:
        return n - 1
    t0, t1 = float(times[0]), float(times[-1])
    tol = 1e-9 * max(1.0, abs(t0), abs(t1))
    if not (t0 - tol <= args.time <= t1 + tol) or math.isnan(args.time):
        raise PlotError(f"--time {fmt(args.time)}: outside the {what} records (t = {fmt(t0)} .. {fmt(t1)}, {n} records)")
    return min(range(n), key=lambda i: abs(float(times[i]) - args.time))


def parse_plane(text):
    axis, sep, value = (text or "").partition("=")
    axis = axis.strip().lower()
    try:
        v = float(value)
    except ValueError:
        v = float("nan")
    if not sep or axis not in AXES or not math.isfinite(v):
        raise PlotError(f"--plane expects AXIS=VALUE with AXIS x, y or z, got '{text}'")
    return axis, v


class Slice:
    """A field cut along one axis: which dimension, which index, and the two axes left."""

    def __init__(self, ds, path, field, plane_text):
        fields = fields_of(ds)
        if field not in ds.variables or field not in fields:
            has = ", ".join(fields) if fields else "no fields"
            raise PlotError(f"{path} has no field '{field}'; it has {has}")
        self.var = ds[field]
        self.field = field
        self.rec = self.var.dims[0]
        space = [(d,) + dim_axis(ds, d) for d in self.var.dims[1:]]
        if len(space) not in (2, 3) or any(a is None for _, a, _ in space) or len({a for _, a, _ in space}) != len(space):
            raise PlotError(f"field '{field}' has dimensions {self.var.dims}, not (time, z, y, x) or a plane of them")
        file_planes = plane_axes_of_file(ds)
        held = [a for a in AXES if a not in {a for _, a, _ in space}]  # an axis the field dropped
        single = held + [a for a in file_planes if a not in held]
        if len(space) - len([a for _, a, _ in space if a in single]) < 2:
            raise PlotError(f"field '{field}' is a line, not a plane (one cell along {', '.join(single)})")

        if plane_text is not None:
            axis, value = parse_plane(plane_text)
            ext = axis_extent(ds, axis)
            if ext is not None:
                lo, hi = ext
                tol = 1e-9 * max(1.0, abs(lo), abs(hi))
                if not lo - tol <= value <= hi + tol:
                    raise PlotError(f"--plane {axis}={fmt(value)}: outside the domain ({axis} from {fmt(lo)} to {fmt(hi)})")
            if single and axis not in single:
                raise PlotError(f"{path} holds one plane, {single[0]} = const; --plane {axis}=... cuts no other "
                                f"(give --plane {single[0]}=VALUE, or leave it out)")
            if axis in file_planes:
                centre, half = plane_cell(ds, axis)
                if half is not None and abs(value - centre) > half * (1 + 1e-9):
                    raise PlotError(f"--plane {axis}={fmt(value)}: {path} holds only the plane {axis} = {fmt(centre)} "
                                    f"(its cell spans {fmt(centre - half)} .. {fmt(centre + half)}); leave --plane out")
        elif single:
            axis, value = single[0], None
        else:
            ext = axis_extent(ds, "y")
            axis, value = "y", ((ext[0] + ext[1]) / 2 if ext else None)
        self.axis, self.requested = axis, value

        cut = [s for s in space if s[1] == axis]
        if cut:
            self.dim, _, self.face = cut[0]
            coords = coordinate(ds, self.dim, ds.sizes[self.dim])
            if value is None:
                self.index = 0
            else:
                self.index = min(range(len(coords)), key=lambda i: abs(coords[i] - value))
            self.value = float(coords[self.index])
            self.has_coordinate = self.dim in ds.variables
        else:  # the field holds no dimension along the cut axis: it is the plane
            self.dim, self.face, self.index, self.value, self.has_coordinate = None, False, None, value, False
        rest = sorted([s for s in space if s[1] != axis], key=lambda s: AXES.index(s[1]))
        (self.hdim, self.haxis, self.hface), (self.vdim, self.vaxis, self.vface) = rest
        self.nh, self.nv = ds.sizes[self.hdim], ds.sizes[self.vdim]
        self.hedges = edges(ds, self.hdim, self.haxis, self.hface, self.nh)
        self.vedges = edges(ds, self.vdim, self.vaxis, self.vface, self.nv)
        self.hlim = axis_extent(ds, self.haxis) or (self.hedges[0], self.hedges[-1])
        self.vlim = axis_extent(ds, self.vaxis) or (self.vedges[0], self.vedges[-1])
        self.ds = ds

    def values(self, record=None):
        """The plane as a (vertical, horizontal) array, of one record or (with None) of all."""
        da = self.var
        if self.dim is not None:
            da = da.isel({self.dim: self.index})
        if record is not None:
            da = da.isel({self.rec: record})
        order = ([] if record is not None else [self.rec]) + [self.vdim, self.hdim]
        return da.transpose(*order).values

    def plane_label(self):
        """'z = 0.4792', or 'zf = 0.5 (z face)' for a field on faces."""
        if self.dim is None or not self.has_coordinate:
            if self.value is None:
                return f"the file's {self.axis} plane"
            return f"{self.axis} = {fmt(self.value)}"
        where = f" ({self.axis} face)" if self.face else ""
        return f"{self.dim} = {fmt(self.value)}{where}"

    def file_tag(self):
        if self.value is None:
            return f"{self.axis}plane"
        return f"{self.axis}{self.value:.4g}"

    def axis_label(self, dim, axis):
        """'x', 'x [m]', or 'z (faces)' along the faces a staggered field lives on."""
        if dim not in self.ds.variables:
            return f"{axis} (index)"
        faces = " (faces)" if dim_axis(self.ds, dim)[1] else ""
        return f"{axis}{faces}{units_label(self.ds[dim])}"


def colour_range(s, data, args):
    """(vmin, vmax): the flags, else the data's range, symmetric about 0 for a velocity."""
    finite = data[np.isfinite(data)]
    lo = float(finite.min()) if finite.size else 0.0
    hi = float(finite.max()) if finite.size else 0.0
    if s.field in VELOCITIES:
        m = max(abs(lo), abs(hi))
        lo, hi = -m, m
    vmin = args.vmin if args.vmin is not None else lo
    vmax = args.vmax if args.vmax is not None else hi
    if not vmin < vmax:  # a uniform field (w at rest): a small range around its value
        pad = max(abs(vmin), 1.0) * 1e-6 if vmin == vmax else 0.0
        vmin, vmax = (vmin - pad, vmax + pad) if pad else (min(vmin, vmax), max(vmin, vmax))
    return vmin, vmax


def default_cmap(field):
    if field in VELOCITIES:
        return "RdBu_r"
    if field == "T":
        return "RdYlBu_r"
    return "viridis"


def slice_figure(s, ds, path, args):
    """A figure sized to the plane's aspect ratio (whole pixels, even for ffmpeg's encoders)."""
    width = max(s.hlim[1] - s.hlim[0], 1e-30)
    height = max(s.vlim[1] - s.vlim[0], 1e-30)
    plot_w = 6.0
    plot_h = min(max(plot_w * height / width, 1.5), 7.5)
    w_in, h_in = plot_w + 1.6, plot_h + 1.3
    w_px, h_px = 2 * round(w_in * args.dpi / 2), 2 * round(h_in * args.dpi / 2)
    fig = plt.figure(figsize=(w_px / args.dpi, h_px / args.dpi), dpi=args.dpi, layout="constrained")
    ax = fig.add_subplot()
    ax.set_xlabel(s.axis_label(s.hdim, s.haxis))
    ax.set_ylabel(s.axis_label(s.vdim, s.vaxis))
    ax.set_xlim(*s.hlim)
    ax.set_ylim(*s.vlim)
    ax.set_aspect("equal" if plot_h < 7.5 and plot_h > 1.5 else "auto")
    return fig, ax


def slice_title(s, ds, path, times, record):
    t = float(times[record]) if len(times) else float("nan")
    name = attr(s.var, "long_name", s.field)
    return (f"{case_name(ds, path)}: {s.field} ({name}) at {s.plane_label()}\n"
            f"{record_time(ds, s.rec, record, t)}{units_system_note(ds)}, record {record} (records 0 .. {len(times) - 1})")


def draw_slice(ds, path, args):
    s = Slice(ds, path, args.field, args.plane)
    times = ds[s.rec].values if s.rec in ds.variables else list(range(ds.sizes[s.rec]))
    record = pick_record(times, args, "snapshot")
    data = s.values(record)
    vmin, vmax = colour_range(s, data, args)
    fig, ax = slice_figure(s, ds, path, args)
    mesh = ax.pcolormesh(s.hedges, s.vedges, data, cmap=args.cmap or default_cmap(s.field), vmin=vmin, vmax=vmax,
                         shading="flat")
    bar = fig.colorbar(mesh, ax=ax, shrink=0.9)
    bar.set_label(f"{s.field}{units_label(s.var)}")
    ax.set_title(slice_title(s, ds, path, times, record), fontsize=10)
    t = float(times[record])
    out = args.output or f"{stem_of(path)}_{s.field}_{s.file_tag()}_t{t:.4g}.png"
    save(fig, out)
    finite = data[np.isfinite(data)]
    return {
        "kind": "slice", "file": path, "output": out, "field": s.field, "record": int(record), "time": t,
        "time_bounds": record_bounds(ds, s.rec, record),
        "plane": {"axis": s.axis, "dim": s.dim, "requested": s.requested, "value": s.value, "index": s.index,
                  "face": bool(s.face)},
        "axes": [s.hdim, s.vdim], "shape": [int(s.nv), int(s.nh)],
        "min": float(finite.min()) if finite.size else None, "max": float(finite.max()) if finite.size else None,
        "vmin": vmin, "vmax": vmax,
    }


def draw_frames(ds, path, args):
    """One picture per record, one colour range for all (no flicker), names DIR/FIELD_00000.png."""
    s = Slice(ds, path, args.field, args.plane)
    times = ds[s.rec].values if s.rec in ds.variables else list(range(ds.sizes[s.rec]))
    if len(times) == 0:
        raise PlotError("the file holds no snapshot records")
    all_data = s.values(None)
    vmin, vmax = colour_range(s, all_data, args)
    try:
        os.makedirs(args.frames, exist_ok=True)
    except OSError as e:
        raise PlotError(f"--frames {args.frames}: cannot make the folder ({e.strerror})")
    fig, ax = slice_figure(s, ds, path, args)
    mesh = ax.pcolormesh(s.hedges, s.vedges, all_data[0], cmap=args.cmap or default_cmap(s.field), vmin=vmin,
                         vmax=vmax, shading="flat")
    bar = fig.colorbar(mesh, ax=ax, shrink=0.9)
    bar.set_label(f"{s.field}{units_label(s.var)}")
    title = ax.set_title("", fontsize=10)
    pattern = f"{s.field}_%05d.png"
    files = []
    for record in range(len(times)):
        mesh.set_array(all_data[record].ravel())
        title.set_text(slice_title(s, ds, path, times, record))
        out = os.path.join(args.frames, pattern % record)
        fig.savefig(out)
        files.append(out)
    plt.close(fig)
    stale = os.path.join(args.frames, pattern % len(files))
    if os.path.exists(stale):
        print(f"bouss plot: note: {stale} and maybe more are older frames; ffmpeg would take them too",
              file=sys.stderr)
    finite = all_data[np.isfinite(all_data)]
    return {
        "kind": "frames", "file": path, "dir": args.frames, "pattern": os.path.join(args.frames, pattern),
        "count": len(files), "files": files, "field": s.field,
        "plane": {"axis": s.axis, "dim": s.dim, "requested": s.requested, "value": s.value, "index": s.index,
                  "face": bool(s.face)},
        "min": float(finite.min()) if finite.size else None, "max": float(finite.max()) if finite.size else None,
        "vmin": vmin, "vmax": vmax,
        "ffmpeg": f"ffmpeg -framerate 10 -i {os.path.join(args.frames, pattern)} -c:v libx264 -pix_fmt yuv420p "
                  f"{s.field}.mp4",
    }


# ---------------------------------------------------------------------------------------------
# Series and profiles: panels of named variables on one record dimension


def panels_from(text, available, default_groups, flag, path, what):
    if text is None:
        groups = [[n for n in g if n in available] for g in default_groups]
        groups = [g for g in groups if g]
        if not groups:
            groups = [[n] for n in available]
        return groups
    groups = []
    for panel in text.split(","):
        names = [n.strip() for n in panel.split("+") if n.strip()]
        if not names:
            raise PlotError(f"{flag} '{text}': an empty name")
        for n in names:
            if n not in available:
                has = ", ".join(available) if available else "none"
                raise PlotError(f"{path} has no {what} '{n}'; it has {has}")
        groups.append(names)
    return groups


def draw_series(ds, path, args):
    dim = "diagnostic_time"
    if dim not in ds.dims:
        raise PlotError(f"{path} has no diagnostics series (no {dim} dimension)")
    available = series_of(ds, dim)
    # The default panels leave out what holds no finite value (the dissipation estimates
    # between side walls that exchange heat).
    nusselt = [n for n in NUSSELT if n in available and np.isfinite(ds[n].values.astype(float)).any()]
    groups = panels_from(args.diagnostics, available,
                         [["kinetic_energy"], nusselt] if nusselt else [["kinetic_energy"], ["max_velocity"]],
                         "--diagnostics", path, "diagnostic")
    t = ds[dim].values if dim in ds.variables else np.arange(ds.sizes[dim])
    if len(t) == 0:
        raise PlotError(f"{path} holds no diagnostics records")
    n = len(groups)
    fig, axes = plt.subplots(n, 1, sharex=True, figsize=(7.0, 1.2 + 2.0 * n), dpi=args.dpi, layout="constrained",
                             squeeze=False)
    report = []
    for ax, group in zip(axes[:, 0], groups):
        for name in group:
            y = ds[name].values.astype(float)
            ax.plot(t, y, label=name if len(group) > 1 else None, lw=1.3)
            finite = y[np.isfinite(y)]
            report.append({"name": name, "count": int(finite.size),
                           "min": float(finite.min()) if finite.size else None,
                           "max": float(finite.max()) if finite.size else None})
        # Growth from a small perturbation is exponential: a log axis shows it as a line.
        values = np.concatenate([ds[nm].values.astype(float) for nm in group])
        values = values[np.isfinite(values)]
        positive = values[values > 0]
        if not args.linear and positive.size and values.min() >= 0 and positive.max() / positive.min() > 1e3:
            ax.set_yscale("log")
        first = ds[group[0]]
        if len(group) == 1:
            ax.set_ylabel(f"{group[0]}{units_label(first)}")
            ax.set_title(attr(first, "long_name", group[0]), fontsize=9, loc="left")
        else:
            units = {units_label(ds[nm]) for nm in group}
            ax.set_ylabel(("value" if len(units) > 1 else common_name(group)) + (units.pop() if len(units) == 1 else ""))
            ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel(f"time{units_label(ds[dim]) if dim in ds.variables else ''}")
    fig.suptitle(f"{case_name(ds, path)}: diagnostics{units_system_note(ds)}", fontsize=11)
    out = args.output or f"{stem_of(path)}_series.png"
    save(fig, out)
    return {"kind": "series", "file": path, "output": out, "records": int(len(t)),
            "panels": groups, "variables": report}


def common_name(names):
    """'nusselt' for nusselt_bottom, nusselt_top: the shared prefix, else the first name."""
    parts = [n.split("_") for n in names]
    prefix = []
    for words in zip(*parts):
        if len(set(words)) != 1:
            break
        prefix.append(words[0])
    return "_".join(prefix) or names[0]


def draw_profiles(ds, path, args):
    dim = "profile_time"
    if dim not in ds.dims:
        raise PlotError(f"{path} has no profiles (no {dim} dimension)")
    available = series_of(ds, dim)
    available = [n for n in available if ds[n].ndim == 2]
    groups = panels_from(args.variables, available, PROFILE_PANELS, "--variables", path, "profile")
    times = ds[dim].values if dim in ds.variables else np.arange(ds.sizes[dim])
    record = pick_record(times, args, "profile")
    n = len(groups)
    fig, axes = plt.subplots(1, n, sharey=True, figsize=(1.2 + 2.6 * n, 5.0), dpi=args.dpi, layout="constrained",
                             squeeze=False)
    report = []
    zlabel = None
    zlims = []
    for ax, group in zip(axes[0], groups):
        for name in group:
            var = ds[name]
            zdim = var.dims[1]
            z = coordinate(ds, zdim, ds.sizes[zdim])
            values = var.isel({dim: record}).values.astype(float)
            label = f"{name} (on {zdim})" if len(group) > 1 else None
            ax.plot(values, z, marker=".", ms=3, lw=1.3, label=label)
            finite = values[np.isfinite(values)]
            report.append({"name": name, "zdim": zdim, "count": int(finite.size),
                           "min": float(finite.min()) if finite.size else None,
                           "max": float(finite.max()) if finite.size else None})
            zlabel = zlabel or (f"z{units_label(ds[zdim])}" if zdim in ds.variables else "z (index)")
            ext = axis_extent(ds, "z")
            zlims.append(ext if ext else (min(z), max(z)))
        first = ds[group[0]]
        if len(group) == 1:
            ax.set_xlabel(f"{group[0]}{units_label(first)}")
            ax.set_title(textwrap.fill(attr(first, "long_name", group[0]), 30), fontsize=9)
        else:
            units = {units_label(ds[nm]) for nm in group}
            ax.set_xlabel(", ".join(group) + (units.pop() if len(units) == 1 else ""))
            ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
    axes[0, 0].set_ylabel(zlabel or "z")
    if zlims:
        axes[0, 0].set_ylim(min(l for l, _ in zlims), max(h for _, h in zlims))
    t = float(times[record])
    fig.suptitle(f"{case_name(ds, path)}: horizontal means and rms, {record_time(ds, dim, record, t)}{units_system_note(ds)}, "
                 f"record {record} (records 0 .. {len(times) - 1})", fontsize=11)
    out = args.output or f"{stem_of(path)}_profiles.png"
    save(fig, out)
    return {"kind": "profiles", "file": path, "output": out, "record": int(record), "time": t,
            "time_bounds": record_bounds(ds, dim, record), "panels": groups,
            "variables": report}


# ---------------------------------------------------------------------------------------------
# What the file holds


def describe(ds, path):
    rec = record_dim(ds)
    out = {"kind": "list", "file": path, "title": case_name(ds, path),
           "units_system": str(ds.attrs.get("units_system", "")), "fields": {}}
    times = ds[rec].values if rec in ds.variables else []
    out["records"] = int(ds.sizes[rec]) if rec else 0
    out["time"] = [float(times[0]), float(times[-1])] if len(times) else None
    for name in fields_of(ds):
        var = ds[name]
        dims = []
        for d in var.dims[1:]:
            a, face = dim_axis(ds, d)
            dims.append({"dim": d, "axis": a, "face": face, "size": int(ds.sizes[d]),
                         "units": str(attr(ds[d], "units", "")) if d in ds.variables else None,
                         "c_grid_axis_shift": float(ds[d].attrs["c_grid_axis_shift"]) if d in ds.variables and
                         "c_grid_axis_shift" in ds[d].attrs else None})
        out["fields"][name] = {"long_name": str(attr(var, "long_name", "")), "units": str(attr(var, "units", "")),
                               "grid_location": str(attr(var, "grid_location", "")), "dims": dims}
    for key, dim in (("diagnostics", "diagnostic_time"), ("profiles", "profile_time")):
        out[key] = series_of(ds, dim) if dim in ds.dims else []
        out[key + "_records"] = int(ds.sizes[dim]) if dim in ds.dims else 0
    out["plane_axes"] = plane_axes_of_file(ds)
    return out


def print_list(d):
    print(f"{d['file']}: {d['title']}, {d['units_system'] or 'units not given'}")
    if d["time"]:
        print(f"  {d['records']} snapshot records, t = {fmt(d['time'][0])} .. {fmt(d['time'][1])}")
    else:
        print("  no snapshot records")
    if d["plane_axes"]:
        print(f"  one cell along {', '.join(d['plane_axes'])}: a plane")
    for name, f in d["fields"].items():
        dims = ", ".join(x["dim"] for x in f["dims"])
        print(f"  {name:8s} ({dims})  {f['long_name']}, {f['grid_location'] or 'location not given'}")
    for key in ("diagnostics", "profiles"):
        if d[key]:
            print(f"  {key} ({d[key + '_records']} records): {', '.join(d[key])}")


def save(fig, out):
    folder = os.path.dirname(out)
    try:
        if folder:
            os.makedirs(folder, exist_ok=True)
        fig.savefig(out)
    except OSError as e:
        raise PlotError(f"--output {out}: cannot write it ({e.strerror or e})")
    finally:
        plt.close(fig)


def load_libraries():
    """matplotlib (Agg), numpy and xarray, imported after the flags so that --help needs none."""
    global matplotlib, plt, np, xr
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
        import xarray as xr
    except ImportError as e:
        fail(f"{sys.executable} lacks {e.name or e} (tools/setup.sh installs python3-xarray, python3-matplotlib and "
             "python3-netcdf4)", code=1)


def main(argv):
    args = parse_args(argv)
    load_libraries()
    if args.cmap is not None and args.cmap not in matplotlib.colormaps:
        fail(f"--cmap {args.cmap}: not a matplotlib colour map (viridis, RdBu_r, RdYlBu_r, inferno, ...)")
    try:
        ds = open_file(args.file)
        with ds:
            if args.kind == "list":
                d = describe(ds, args.file)
                print(json.dumps(d) if args.json else "", end="\n" if args.json else "")
                if not args.json:
                    print_list(d)
                return 0
            draw = {"slice": draw_slice, "frames": draw_frames, "series": draw_series, "profiles": draw_profiles}
            result = draw[args.kind](ds, args.file, args)
    except PlotError as e:
        fail(str(e))
    if args.json:
        print(json.dumps(result))
    elif args.kind == "frames":
        print(f"wrote {result['count']} frames, {result['pattern']}; an animation: {result['ffmpeg']}")
    else:
        print(f"wrote {result['output']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
