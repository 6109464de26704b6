"""The ``streamsql`` command: ``run`` a SQL script, or open the interactive ``shell``.

Exit codes: 0 success (all jobs finished), 1 a statement or job failed, 2 bad usage,
130 interrupted (Ctrl-C: jobs are cancelled cleanly).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys

from streamsql.core.errors import StreamSQLError


def _settings(pairs: list[str]) -> dict[str, str]:
    """``--set KEY=VALUE`` pairs, checked as ``SET`` checks them (a bad value exits 2)."""
    from streamsql.core.config import check_setting

    out = {}
    for p in pairs or []:
        if "=" not in p:
            sys.stderr.write(f"[ERROR] --set expects KEY=VALUE, got {p!r}\n")
            sys.exit(2)
        k, v = (x.strip() for x in p.split("=", 1))
        try:
            warning = check_setting(k, v)
        except StreamSQLError as e:
            sys.stderr.write(f"[ERROR] --set {p}: {e}\n")
            sys.exit(2)
        if warning:
            sys.stderr.write(warning + "\n")
        out[k] = v
    return out


def cmd_run(args: argparse.Namespace) -> int:
    """Run a script: statements in order, then wait for every INSERT job."""
    from streamsql.environment import StreamEnvironment
    from streamsql.output import print_result

    try:
        with open(args.file, encoding="utf-8") as f:
            script = f.read()
    except OSError as e:
        sys.stderr.write(f"[ERROR] Cannot read {args.file}: {e.strerror}\n")
        return 1
    except UnicodeDecodeError as e:
        sys.stderr.write(f"[ERROR] {args.file} is not UTF-8 text (byte {e.start}: {e.reason})\n")
        return 1
    env = StreamEnvironment(_settings(args.set))
    try:
        from streamsql.core.errors import StatementError
        from streamsql.sql.parser import error_in_script, parse_script

        # Parse the whole script first: a syntax error at the end must not leave jobs running.
        statements = parse_script(script, args.file)
        for st, tree in statements:
            try:
                result = env.execute_parsed(tree, st.text)
            except StatementError as e:  # a SqlError or PlanError: re-position it in the script
                raise error_in_script(e, st, script, args.file) from None
            except StreamSQLError as e:
                msg = f"{args.file}:{st.line}: {e}"
                raise type(e)(msg) from None
            print_result(result, sys.stdout)
        env.wait_all()
        for job in env.jobs.values():
            sys.stderr.write(job_summary(job) + "\n")
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("\n[INFO] Interrupted; cancelling jobs.\n")
        env.close()
        return 130
    except Exception as e:  # never a bare traceback: say what failed, trace only with --verbose
        text = str(e) if isinstance(e, StreamSQLError) else f"Internal error ({type(e).__name__}): {e}"
        sys.stderr.write(f"[ERROR] {text}\n")
        if args.verbose:
            import traceback

            traceback.print_exc()
        env.close()
        return 1


def job_summary(job) -> str:
    """One line about a finished job: rows, bad records, the checkpoint it resumed from, the last one."""
    m, cp = job.metrics, job.last_checkpoint
    parts = [f"{m['rows_in']} rows in", f"{m['rows_out']} rows out"]
    if m.get("bad_records"):
        parts.append(f"{m['bad_records']} bad records skipped")
    if m.get("late_records"):
        parts.append(f"{m['late_records']} late records dropped")
    if job.runner.restored_from is not None:
        parts.append(f"resumed from checkpoint #{job.runner.restored_from}")
    if cp:
        parts.append(f"last checkpoint #{cp['checkpoint_id']} ({cp['duration_ms']} ms, "
                     f"{sum(cp['state_bytes'].values())} bytes, alignment {cp['alignment_ms']} ms)")
    return f"[INFO] Job '{job.name}' {job.status}: " + ", ".join(parts)


def cmd_shell(args: argparse.Namespace) -> int:
    """Start the interactive shell."""
    try:
        from streamsql.shell.app import run_shell
    except ImportError as e:
        sys.stderr.write(f"[ERROR] The shell is not available: {e}\n")
        return 1
    return run_shell(init_file=args.init, settings=_settings(args.set))


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``streamsql`` console script."""
    parser = argparse.ArgumentParser(prog="streamsql", description="Streaming SQL over Kafka, exactly-once.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a SQL script; exits when all its jobs finish")
    run.add_argument("file", help="the .sql script")
    run.add_argument("--set", action="append", metavar="KEY=VALUE", help="a configuration setting")
    run.add_argument("--verbose", action="store_true", help="print stack traces of errors")
    shell = sub.add_parser("shell", help="interactive SQL shell")
    shell.add_argument("-i", "--init", help="a script of DDL and SET statements to run first")
    shell.add_argument("--set", action="append", metavar="KEY=VALUE", help="a configuration setting")
    args = parser.parse_args(argv)
    logging.basicConfig(level=os.environ.get("STREAMSQL_LOG", "WARNING").upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.command == "run":
        signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops jobs as cleanly as Ctrl-C
        return cmd_run(args)
    return cmd_shell(args)


if __name__ == "__main__":
    sys.exit(main())
