# Reads every record of every variable of output files (tools/kill_trials.sh): usage kill_trials_check.py FILE...
# Prints one line per file: class (ok | last-incomplete | DAMAGED | NOOPEN) and details.
# DAMAGED: a record other than the last of its dimension does not read or holds fill values
# (a record before the last one had been flushed completely), or a whole-variable read fails
# on a record that is not the last.
import sys, json
import numpy as np, netCDF4
def bad_records(v, n):
    out = {}
    fill = getattr(v, '_FillValue', netCDF4.default_fillvals['f8' if v.dtype == np.float64 else 'f4'])
    try:
        x = np.asarray(v[:n]) if n else None
        if n:
            f = (x == fill).reshape(n, -1).any(axis=1)
            for r in np.nonzero(f)[0]: out[int(r)] = 'fill'
        return out, True
    except Exception:
        pass
    for r in range(n):
        try:
            x = np.asarray(v[r])
            if np.any(x == fill): out[r] = 'fill'
        except Exception:
            out[r] = 'ERR'
    return out, False
for path in sys.argv[1:]:
    try:
        ds = netCDF4.Dataset(path)
    except Exception as e:
        print('NOOPEN', path, str(e)[:100]); continue
    ds.set_auto_mask(False)
    res = {}; cls = 'ok'
    for dim in ('time', 'profile_time', 'diagnostic_time'):
        if dim not in ds.dimensions: continue
        n = len(ds.dimensions[dim]); why = {}; whole_ok = True
        for v in ds.variables.values():
            if not v.dimensions or v.dimensions[0] != dim: continue
            b, whole = bad_records(v, n)
            whole_ok = whole_ok and whole
            for r, w in b.items(): why.setdefault(r, []).append(v.name + ' ' + w)
        res[dim] = {'n': n, 'bad': {r: why[r][:5] for r in sorted(why)}, 'whole_ok': whole_ok}
        if any(r < n - 1 for r in why): cls = 'DAMAGED'
        elif why and cls == 'ok': cls = 'last-incomplete'
    ds.close()
    print(cls, path, json.dumps(res))
