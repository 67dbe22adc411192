#!/usr/bin/env bash
# Run every lab's solution and the all-reduce benchmark on this machine's GPUs (NCCL), or on
# CPU processes (gloo) when there are none, and keep everything in one folder.
#
#   bash labs/gpu_check.sh [RESULTS_DIR]        (default ./gpu-check-results)
#
# Writes: environment.json (nccl-course doctor --json), topology.txt, labNN-run.txt (main() of
# each solution), labNN-tests.txt (the lab's tests on the backend in use), bench-all_reduce.json/.png/.txt,
# on NCCL nccl-log.HOST.PID (NCCL's INIT,GRAPH,TUNING log) and model-vs-nccl-log.txt (nccl-course
# model --check-log on rank 0's log), summary.txt. Exits 1 if anything failed. Budget: about 5
# minutes on a GPU box.
set -u

OUT="${1:-./gpu-check-results}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
if [ -x "$REPO/.venv/bin/python" ]; then PY="$REPO/.venv/bin/python"; else PY="${PYTHON:-python3}"; fi
COURSE=("$PY" -m nccl_course)
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
FAILED=0

note() { echo "$*" | tee -a "$SUMMARY"; }

step() {  # step NAME SECONDS OUTFILE -- command...
    local name="$1" limit="$2" file="$3"
    shift 4
    local start=$SECONDS
    if timeout --kill-after=10 "$limit" "$@" > "$file" 2>&1; then
        note "PASS  $name  ($((SECONDS - start)) s)"
    else
        local rc=$?
        FAILED=1
        if [ "$rc" -eq 124 ]; then
            note "FAIL  $name  (stopped after $limit s; see $(basename "$file"))"
        else
            note "FAIL  $name  (exit $rc; see $(basename "$file"))"
        fi
    fi
}

cd "$REPO"
GPUS=$("$PY" -c "import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)" 2>/dev/null || echo 0)
if [ "$GPUS" -ge 1 ]; then
    BACKEND=nccl
    NPROC=$(( GPUS > 8 ? 8 : GPUS ))
    MAXBYTES=1GiB
else
    BACKEND=gloo
    NPROC=2
    MAXBYTES=16MiB
fi
note "gpu_check: $GPUS GPU(s); labs and benchmark on $BACKEND with $NPROC rank(s); results in $OUT"
"${COURSE[@]}" doctor --json > "$OUT/environment.json" 2> /dev/null
if command -v nvidia-smi > /dev/null; then nvidia-smi topo -m > "$OUT/topology.txt" 2>&1; fi

for lab_dir in "$HERE"/[0-9][0-9]-*/; do
    lab=$(basename "$lab_dir")
    number=${lab%%-*}
    [ -f "$lab_dir/solution.py" ] || { note "SKIP  lab $lab (no solution.py)"; continue; }
    step "lab $lab: main() on $NPROC rank(s), $BACKEND" 180 "$OUT/lab$number-run.txt" -- \
        "${COURSE[@]}" lab run "$number" --solution --nproc "$NPROC" --backend "$BACKEND"
    # The tests need two ranks or more; one GPU cannot hold two NCCL ranks, so a one-GPU box
    # checks correctness on gloo and runs main() on NCCL above.
    if [ "$BACKEND" = nccl ] && [ "$NPROC" -ge 2 ]; then
        TEST_BACKEND=nccl; TEST_SIZES=$(( NPROC > 4 ? 4 : NPROC ))
    else
        TEST_BACKEND=gloo; TEST_SIZES=2
    fi
    step "lab $lab: tests on $TEST_BACKEND at $TEST_SIZES ranks" 300 "$OUT/lab$number-tests.txt" -- \
        env NCCL_COURSE_LAB_BACKEND="$TEST_BACKEND" NCCL_COURSE_WORLD_SIZES="$TEST_SIZES" \
        "$PY" -m pytest "$lab_dir/tests" -q -p no:cacheprovider --import-mode=importlib
done

# On NCCL, the benchmark also keeps NCCL's own log of its tuner (one file per process) ...
NCCL_LOG_ENV=(env)
if [ "$BACKEND" = nccl ]; then
    NCCL_LOG_ENV=(env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING
        "NCCL_DEBUG_FILE=$OUT/nccl-log.%h.%p")
fi
step "bench all_reduce 8 B .. $MAXBYTES on $NPROC rank(s)" 600 "$OUT/bench-all_reduce.txt" -- \
    "${NCCL_LOG_ENV[@]}" "${COURSE[@]}" bench all_reduce --nproc "$NPROC" --backend "$BACKEND" \
    -b 8 -e "$MAXBYTES" -n 20 -w 5 --json "$OUT/bench-all_reduce.json" \
    --plot "$OUT/bench-all_reduce.png" --no-progress

# ... which the course's model of NCCL's tuner is compared with. A difference is a finding
# about the model (see model-vs-nccl-log.txt), not a failed check, so it only adds a note.
if [ "$BACKEND" = nccl ]; then
    LOG=$(grep -l "NCCL INFO comm 0x[0-9a-f]* rank 0 nRanks" "$OUT"/nccl-log.* 2> /dev/null | head -n 1)
    SM=$("$PY" -c "import torch; a, b = torch.cuda.get_device_capability(); print(10 * a + b)")
    if [ -n "$LOG" ]; then
        "${COURSE[@]}" model --check-log "$LOG" --sm "$SM" > "$OUT/model-vs-nccl-log.txt" 2>&1
        CHECK=$?
        if [ "$CHECK" -eq 2 ]; then  # a release the model does not have: compare with its own
            "${COURSE[@]}" model --check-log "$LOG" --sm "$SM" --nccl-version 2.30.7 \
                >> "$OUT/model-vs-nccl-log.txt" 2>&1
            CHECK=$?
        fi
        note "INFO  NCCL's tuner vs the model (exit $CHECK): $(grep -E '^(NCCL [0-9.]+ tuner|table cells|calls)' "$OUT/model-vs-nccl-log.txt" | tr '\n' ';')"
    else
        note "INFO  no rank-0 NCCL log in $OUT to compare with the model"
    fi
fi

if [ "$FAILED" -eq 0 ]; then note "all steps passed"; else note "some steps FAILED"; fi
exit "$FAILED"
