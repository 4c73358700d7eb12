#!/usr/bin/env python3
"""The mutants suite: every mutant of tests/mutants/table must fail a test.

    run.py SOURCE_ROOT SCRATCH_DIR [MUTANT...]

Configures one scratch build in SCRATCH_DIR (kept between runs) and builds
it unmutated, where every test of the table must pass; then, for each
mutant (all of the table's, or those named), sets -Dmutant=NAME, builds the
test executables that can see it (ninja recompiles the files that include
mutant.h, and relinks) and runs them. A mutant no test fails survives, and
fails the suite. Prints which tests caught each mutant; each test's output
is in SCRATCH_DIR/logs.
"""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import time

# Two cores, shared with the other tests of the leg.
JOBS = 2
TEST_TIMEOUT_S = 300


def read_table(path, source):
    tests, mutants = {}, {}
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            words = line.split()
            if not words or words[0].startswith('#'):
                continue
            if words[0] == 'test' and len(words) >= 3:
                args = []
                for arg in words[3:]:
                    arg = arg.replace('{source}', source)
                    args += sorted(glob.glob(arg)) if '*' in arg else [arg]
                tests[words[1]] = (words[2], args)
            elif words[0] == 'mutant' and len(words) >= 3:
                mutants[words[1]] = words[2:]
            else:
                sys.exit('%s:%d: neither "test NAME TARGET [ARGS...]" nor '
                         '"mutant NAME TESTS..."' % (path, line_no))
    for name, names in mutants.items():
        unknown = [t for t in names if t not in tests]
        if unknown:
            sys.exit('%s: mutant %s names no such test: %s' %
                     (path, name, ' '.join(unknown)))
    return tests, mutants


def hooks(source):
    """The mutants src/ carries, as the table names them."""
    found = set()
    for path in glob.glob(os.path.join(source, 'src', '*.c')):
        with open(path) as f:
            for macro in re.findall(r'LG_MUTANT\((\w+)\)', f.read()):
                found.add(macro.lower().replace('_', '-'))
    return found


def run(args, log=None, timeout=None, cwd=None):
    # The programs a mutant fails are the mutant's: written beside its
    # logs, never where a run collects the searches' failing programs.
    env = dict(os.environ)
    if log:
        env['LINKGUARD_SCENARIO_OUT'] = os.path.dirname(log)
    else:
        env.pop('LINKGUARD_SCENARIO_OUT', None)
    with open(log or os.devnull, 'w') as out:
        try:
            return subprocess.run(args, stdout=out, stderr=subprocess.STDOUT,
                                  timeout=timeout, cwd=cwd, env=env).returncode
        except subprocess.TimeoutExpired:
            return 'timeout'


def build(scratch, mutant, targets):
    """Configures the scratch build for mutant and builds targets."""
    log = os.path.join(scratch, 'logs', (mutant or 'unmutated') + '.build')
    if run(['meson', 'configure', scratch, '-Dmutant=' + mutant], log) != 0:
        return log
    if run(['ninja', '-C', scratch, '-j', str(JOBS)] + sorted(targets), log) != 0:
        return log
    return None


def run_tests(scratch, tests, names, mutant):
    """The tests' exit statuses ('timeout' for one) and times, by name."""
    def one(name):
        target, args = tests[name]
        cwd = os.path.join(scratch, 'work', name)
        os.makedirs(cwd, exist_ok=True)
        log = os.path.join(scratch, 'logs', '%s.%s' % (mutant or 'unmutated', name))
        began = time.monotonic()
        status = run([os.path.join(scratch, target)] + args, log, TEST_TIMEOUT_S, cwd)
        return name, (status, time.monotonic() - began)
    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        return dict(pool.map(one, names))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    source, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tests, mutants = read_table(os.path.join(source, 'tests', 'mutants', 'table'),
                                source)
    carried = hooks(source)
    if carried != set(mutants):
        sys.exit('src/ carries mutants %s, tests/mutants/table lists %s' %
                 (' '.join(sorted(carried - set(mutants))) or 'none it lacks',
                  ' '.join(sorted(set(mutants) - carried)) or 'none more'))
    chosen = sys.argv[3:] or list(mutants)
    for name in chosen:
        if name not in mutants:
            sys.exit('no mutant %s in tests/mutants/table' % name)

    os.makedirs(os.path.join(scratch, 'logs'), exist_ok=True)
    if not os.path.exists(os.path.join(scratch, 'build.ninja')):
        log = os.path.join(scratch, 'logs', 'setup')
        # The unit and scenario tests' executables only.
        if run(['meson', 'setup', scratch, source, '-Dwerror=true',
                '-Dexamples=false', '-Dmutant='], log) != 0:
            sys.exit('meson setup failed: see %s' % log)

    start = time.monotonic()
    # Unmutated, every test passes: a failure below is the mutant's.
    used = sorted({t for name in chosen for t in mutants[name]})
    failed_log = build(scratch, '', {tests[t][0] for t in used})
    if failed_log is not None:
        sys.exit('the unmutated build failed: see %s' % failed_log)
    results = run_tests(scratch, tests, used, '')
    broken = [t for t in used if results[t][0] != 0]
    print('unmutated: %d tests pass%s, built and run in %.0f s (%s)' % (
          len(used) - len(broken), ', FAIL: ' + ' '.join(broken) if broken else '',
          time.monotonic() - start,
          ', '.join('%s %.0f s' % (t, results[t][1]) for t in used)))
    sys.stdout.flush()
    if broken:
        sys.exit('tests fail without a mutant: see %s/logs/unmutated.*' % scratch)

    survivors = []
    width = max(len(name) for name in chosen)
    for name in chosen:
        began = time.monotonic()
        failed_log = build(scratch, name, {tests[t][0] for t in mutants[name]})
        if failed_log is not None:
            print('%-*s  BUILD FAILED: see %s' % (width, name, failed_log))
            survivors.append(name)
            continue
        results = run_tests(scratch, tests, mutants[name], name)
        caught = ['%s (%s, %.0f s)' % (t, results[t][0] if results[t][0] == 'timeout'
                  else 'exit %d' % results[t][0], results[t][1])
                  for t in mutants[name] if results[t][0] != 0]
        passed = [t for t in mutants[name] if results[t][0] == 0]
        if not caught:
            survivors.append(name)
        print('%-*s  %s; passed: %s (%.0f s)' % (width, name,
              'caught by ' + ', '.join(caught) if caught else 'SURVIVED',
              ', '.join(passed) or 'none', time.monotonic() - began))
        sys.stdout.flush()

    print('%d mutants, %d caught, %d survived%s; %.0f s' % (len(chosen),
          len(chosen) - len(survivors), len(survivors),
          ': ' + ' '.join(survivors) if survivors else '', time.monotonic() - start))
    return 1 if survivors else 0


if __name__ == '__main__':
    sys.exit(main())
