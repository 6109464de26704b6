"""Finding 3 of issue 12 in the shell: a background INSERT that fails gave no notice, and SHOW
JOBS said ``FAILED`` with no way to see why."""

from tests.e2e.test_failures_reported import BAD_SOURCE


def test_finding_3_shell_notices_a_background_failure(workdir, bad_json):
    """Finding 3: the shell prints a notice when a background INSERT fails; SHOW JOBS has the
    cause and DESCRIBE JOB 'id' the whole error."""
    # Started here, not in a fixture: the notice is printed to the (patched) sys.stdout.
    from tests.shell.terminal import PipeShell

    sh = PipeShell()
    try:
        sh.expect(r"streamsql> ")
        sh.send(BAD_SOURCE.format(path=bad_json) + "\n"
                "CREATE TABLE `out` (id INT) WITH ('connector' = 'blackhole');\n")
        m = sh.mark()
        job_id = sh.send_expect("INSERT INTO `out` SELECT id FROM src;\n", r"Job ID: (\w+)").group(1)
        sh.expect(rf"\[ERROR\] Job 'insert-into_out-[0-9a-f]{{8}}' \(id {job_id}\) FAILED: .*bad.json:2",
                  after=m, timeout=30)
        sh.expect(rf"DESCRIBE JOB '{job_id}' shows the whole error", after=m)
        sh.send_expect("SHOW JOBS;\n", rf"{job_id} \|.*FAILED \|.*Cannot decode json record at .*bad.json:2")
        sh.send_expect(f"DESCRIBE JOB '{job_id}';\n", r"Status:\s+FAILED.*Error:\n  Cannot decode json "
                       r"record at .*bad.json:2: field 'id': cannot convert 'x' to INT")
        sh.send_expect("DESCRIBE JOB 'nope';\n", r"\[ERROR\] No job with id 'nope'")
        sh.send("QUIT\n")
        assert sh.wait() == 0
    finally:
        sh.close()


def test_shell_notices_a_job_that_restarts_after_a_failure(workdir, bad_json):
    """With the checkpoint interval set, Flink's default restart strategy (exponential-delay)
    restarts the job after the bad record, for ever as on Flink: the shell says so once, with the
    cause; SHOW JOBS shows RESTARTING or RUNNING with the cause."""
    from tests.shell.terminal import PipeShell

    sh = PipeShell()
    try:
        sh.expect(r"streamsql> ")
        sh.send("SET 'execution.checkpointing.interval' = '1 s';\n" + BAD_SOURCE.format(path=bad_json) + "\n"
                "CREATE TABLE `out` (id INT) WITH ('connector' = 'blackhole');\n")
        m = sh.mark()
        job_id = sh.send_expect("INSERT INTO `out` SELECT id FROM src;\n", r"Job ID: (\w+)").group(1)
        sh.expect(rf"\[WARNING\] Job 'insert-into_out-[0-9a-f]{{8}}' \(id {job_id}\) failed and restarts "
                  r".*bad.json:2", after=m, timeout=30)
        sh.send_expect("SHOW JOBS;\n", rf"{job_id} \|.*(RESTARTING|RUNNING) \|.*Cannot decode json record at")
        sh.send_expect(f"STOP JOB '{job_id}';\n", r"\[INFO\]|\[ERROR\]")
        sh.send("QUIT\n")
        sh.wait()
    finally:
        sh.close()
