#!/usr/bin/env bash
# Run every lab's solution and the all-reduce benchmark on this machine's GPUs (NCCL), or on
# CPU processes (gloo) when there are none, and keep everything in one folder: the results
# bundle, which `nccl-course report RESULTS_DIR` turns into one HTML page (report.html).
#
#   bash labs/gpu_check.sh [RESULTS_DIR]                 one node (default ./gpu-check-results)
#   bash labs/gpu_check.sh --nnodes N --node-rank R --master-addr HOST [--master-port PORT] DIR
#                                                        several nodes: run the same command on
#                                                        every node (R = 0 .. N-1); the doctor
#                                                        checks the rendezvous port, then the
#                                                        all-reduce benchmark runs across nodes
#                                                        through torchrun (NET/IB, GDR, Socket)
#   --nproc-per-node N                                   ranks per node (default: every GPU, at
#                                                        most 8; 2 CPU processes without GPUs)
#
# Writes, as it goes (a node that goes away leaves what it finished): steps.jsonl (one line per
# step: name, status pass/fail/skip, seconds, log file) and summary.txt (the same as text),
# environment.json (nccl-course doctor --json), doctor.txt, topology.txt (nvidia-smi topo -m),
# labNN-run.txt (main() of each solution), labNN-tests.txt (the lab's tests on the backend in
# use), bench-all_reduce.json/.png/.txt (timed with NCCL's logging off), on NCCL
# nccl-log.HOST.PID (NCCL's INIT,GRAPH,TUNING log of a short separate run) and
# model-vs-nccl-log.txt (nccl-course model --check-log on rank 0's log), report.html.
# Exits 1 if anything failed, 2 on a usage error. Budget: about 5 minutes on an 8-GPU node.
# GPU_CHECK_MAXBYTES sets the benchmark's largest size (default 1GiB on GPUs, 16MiB on CPU).
set -u

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }

OUT=./gpu-check-results
NNODES=1
NODE_RANK=0
MASTER_ADDR_ARG=""
MASTER_PORT_ARG=29500
NPROC_ARG=""
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --nnodes) NNODES="${2:?--nnodes needs a number}"; shift 2 ;;
        --node-rank) NODE_RANK="${2:?--node-rank needs a number}"; shift 2 ;;
        --master-addr) MASTER_ADDR_ARG="${2:?--master-addr needs a host}"; shift 2 ;;
        --master-port) MASTER_PORT_ARG="${2:?--master-port needs a port}"; shift 2 ;;
        --nproc-per-node) NPROC_ARG="${2:?--nproc-per-node needs a number}"; shift 2 ;;
        -*) echo "gpu_check: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) OUT="$1"; shift ;;
    esac
done
case "$NNODES$NODE_RANK$MASTER_PORT_ARG$NPROC_ARG" in
    *[!0-9]*) echo "gpu_check: --nnodes, --node-rank, --master-port and --nproc-per-node take whole numbers" >&2; exit 2 ;;
esac
if [ "$NNODES" -lt 1 ] || [ "$NODE_RANK" -ge "$NNODES" ]; then
    echo "gpu_check: --node-rank must be 0 .. --nnodes - 1 (got $NODE_RANK of $NNODES)" >&2
    exit 2
fi
if [ "$NNODES" -gt 1 ] && [ -z "$MASTER_ADDR_ARG" ]; then
    echo "gpu_check: several nodes need --master-addr (the address of node 0, reachable from all)" >&2
    exit 2
fi

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
if [ -x "$REPO/.venv/bin/python" ]; then PY="$REPO/.venv/bin/python"; else PY="${PYTHON:-python3}"; fi
COURSE=("$PY" -m nccl_course)
mkdir -p "$OUT" || { echo "gpu_check: cannot create $OUT" >&2; exit 2; }
OUT="$(cd "$OUT" && pwd)"
SUMMARY="$OUT/summary.txt"
STEPS="$OUT/steps.jsonl"
: > "$SUMMARY"
: > "$STEPS"
FAILED=0

note() { echo "$*" | tee -a "$SUMMARY"; }

record() {  # record NAME STATUS SECONDS LOGFILE: one line of steps.jsonl
    "$PY" -c 'import json, sys; print(json.dumps({"name": sys.argv[1], "status": sys.argv[2], "seconds": int(sys.argv[3]), "log": sys.argv[4]}))' \
        "$1" "$2" "$3" "$4" >> "$STEPS"
}

step() {  # step NAME SECONDS OUTFILE -- command...
    local name="$1" limit="$2" file="$3"
    shift 4
    local start=$SECONDS
    if timeout --kill-after=10 "$limit" "$@" > "$file" 2>&1; then
        note "PASS  $name  ($((SECONDS - start)) s)"
        record "$name" pass $((SECONDS - start)) "$(basename "$file")"
    else
        local rc=$?
        FAILED=1
        if [ "$rc" -eq 124 ]; then
            note "FAIL  $name  (stopped after $limit s; see $(basename "$file"))"
        else
            note "FAIL  $name  (exit $rc; see $(basename "$file"))"
        fi
        record "$name" fail $((SECONDS - start)) "$(basename "$file")"
    fi
}

skip() {  # skip NAME REASON
    note "SKIP  $1 ($2)"
    record "$1" skip 0 ""
}

finish() {
    "${COURSE[@]}" report "$OUT" > "$OUT/report.txt" 2>&1 \
        && note "report: $OUT/report.html" \
        || note "FAIL  report (see report.txt)"
    if [ "$FAILED" -eq 0 ]; then note "all steps passed"; else note "some steps FAILED"; fi
    exit "$FAILED"
}

cd "$REPO"
if ! "$PY" -c "import nccl_course, torch" 2> "$OUT/setup-error.txt"; then
    note "FAIL  the course or torch does not import with $PY: run 'make setup-labs' first ($(tail -n 1 "$OUT/setup-error.txt"))"
    exit 1
fi

# The GPUs the driver lists against the GPUs torch can use: a CPU wheel, a CUDA build newer
# than the driver or a fabric manager that is down all leave torch blind, and the labs would
# quietly run on gloo. That is a failed check, not a fallback.
SMI_GPUS=0
if command -v nvidia-smi > /dev/null; then
    SMI_GPUS=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ' || true)
fi
GPUS=$("$PY" -c "import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)" 2> "$OUT/torch-cuda.txt")
GPUS=${GPUS:-0}
if [ "$SMI_GPUS" -gt 0 ] && [ "$GPUS" -lt "$SMI_GPUS" ]; then
    VERSIONS=$("$PY" -c "import torch; print('torch', torch.__version__, 'built for CUDA', torch.version.cuda)" 2>&1)
    DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2> /dev/null | head -n 1)
    note "FAIL  nvidia-smi lists $SMI_GPUS GPU(s) but torch sees $GPUS: $VERSIONS; driver $DRIVER"
    note "      torch said: $(tr '\n' ' ' < "$OUT/torch-cuda.txt" | cut -c1-400)"
    note "      run '.venv/bin/nccl-course doctor' (checks gpus_visible, cuda_driver) and fix it; nothing ran on gloo instead"
    "${COURSE[@]}" doctor --json > "$OUT/environment.json" 2> "$OUT/doctor.txt"
    record "GPUs visible to torch" fail 0 "torch-cuda.txt"
    FAILED=1
    finish
fi

if [ "$GPUS" -ge 1 ]; then
    BACKEND=nccl
    NPROC=$(( GPUS > 8 ? 8 : GPUS ))
    MAXBYTES=1GiB
else
    BACKEND=gloo
    NPROC=2
    MAXBYTES=16MiB
fi
if [ -n "$NPROC_ARG" ]; then
    if [ "$BACKEND" = nccl ] && [ "$NPROC_ARG" -gt "$GPUS" ]; then
        note "FAIL  --nproc-per-node $NPROC_ARG but this node has $GPUS GPU(s): NCCL needs one GPU per rank"
        exit 1
    fi
    NPROC=$NPROC_ARG
fi
MAXBYTES="${GPU_CHECK_MAXBYTES:-$MAXBYTES}"  # the benchmark's largest size (tests keep it small)
note "gpu_check: $GPUS GPU(s); node $NODE_RANK of $NNODES; labs and benchmark on $BACKEND with $NPROC rank(s) per node; results in $OUT"

DOCTOR_ARGS=(--json --nodes "$NNODES")
if [ "$NNODES" -gt 1 ] && [ "$NODE_RANK" -gt 0 ]; then
    # The rendezvous listens once node 0's torchrun has started: give it two minutes, then let
    # the doctor's rendezvous check say what is wrong (a firewall, a wrong address).
    note "waiting up to 120 s for node 0 at $MASTER_ADDR_ARG:$MASTER_PORT_ARG"
    for _ in $(seq 120); do
        if (exec 3<> "/dev/tcp/$MASTER_ADDR_ARG/$MASTER_PORT_ARG") 2> /dev/null; then break; fi
        sleep 1
    done
    DOCTOR_ARGS+=(--master "$MASTER_ADDR_ARG:$MASTER_PORT_ARG")
fi
step "doctor (pre-flight checks)" 120 "$OUT/doctor.txt" -- \
    sh -c '"$@" > "$0"' "$OUT/environment.json" "${COURSE[@]}" doctor "${DOCTOR_ARGS[@]}"
if command -v nvidia-smi > /dev/null; then nvidia-smi topo -m > "$OUT/topology.txt" 2>&1; fi

NCCL_LOG_ENV=(env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING "NCCL_DEBUG_FILE=$OUT/nccl-log.%h.%p")

if [ "$NNODES" -gt 1 ]; then
    # Several nodes: the benchmark across them through torchrun's rendezvous on node 0.
    RUN=("$PY" -m torch.distributed.run --nnodes "$NNODES" --node-rank "$NODE_RANK"
        --nproc-per-node "$NPROC" --master-addr "$MASTER_ADDR_ARG" --master-port "$MASTER_PORT_ARG"
        -m nccl_course.bench all_reduce -b 8 -e "$MAXBYTES" --no-progress)
    step "bench all_reduce 8 B .. $MAXBYTES on $NNODES nodes x $NPROC rank(s)" 900 \
        "$OUT/bench-all_reduce.txt" -- "${RUN[@]}" -n 20 -w 5 \
        --json "$OUT/bench-all_reduce.json" --plot "$OUT/bench-all_reduce.png"
    if [ "$BACKEND" = nccl ]; then
        # Short and separate: NCCL's per-call TUNING lines would inflate the timed sizes.
        step "NCCL log of a short all_reduce sweep across nodes" 600 "$OUT/nccl-log-run.txt" -- \
            "${NCCL_LOG_ENV[@]}" "${RUN[@]}" -n 1 -w 1 -c 0 --json "$OUT/nccl-log-run.json" --no-plot
    fi
else
    for lab_dir in "$HERE"/[0-9][0-9]-*/; do
        lab=$(basename "$lab_dir")
        number=${lab%%-*}
        [ -f "$lab_dir/solution.py" ] || { skip "lab $lab" "no solution.py"; continue; }
        step "lab $lab: main() on $NPROC rank(s), $BACKEND" 180 "$OUT/lab$number-run.txt" -- \
            "${COURSE[@]}" lab run "$number" --solution --nproc "$NPROC" --backend "$BACKEND"
        # The tests need two ranks or more; one GPU cannot hold two NCCL ranks, so a one-GPU box
        # checks correctness on gloo (with NCCL's device rule checked) and runs main() on NCCL.
        if [ "$BACKEND" = nccl ] && [ "$NPROC" -ge 2 ]; then
            TEST_BACKEND=nccl; TEST_SIZES=$(( NPROC > 4 ? 4 : NPROC ))
        else
            TEST_BACKEND=gloo; TEST_SIZES=2
        fi
        step "lab $lab: tests on $TEST_BACKEND at $TEST_SIZES ranks" 300 "$OUT/lab$number-tests.txt" -- \
            env NCCL_COURSE_LAB_BACKEND="$TEST_BACKEND" NCCL_COURSE_WORLD_SIZES="$TEST_SIZES" \
            "$PY" -m pytest "$lab_dir/tests" -q -p no:cacheprovider --import-mode=importlib
    done

    if [ "$NPROC" -ge 2 ]; then
        step "bench all_reduce 8 B .. $MAXBYTES on $NPROC rank(s)" 600 "$OUT/bench-all_reduce.txt" -- \
            "${COURSE[@]}" bench all_reduce --nproc "$NPROC" --backend "$BACKEND" \
            -b 8 -e "$MAXBYTES" -n 20 -w 5 --json "$OUT/bench-all_reduce.json" \
            --plot "$OUT/bench-all_reduce.png" --no-progress
        if [ "$BACKEND" = nccl ]; then
            # Short and separate: NCCL's per-call TUNING lines would inflate the timed sizes.
            step "NCCL log of a short all_reduce sweep" 300 "$OUT/nccl-log-run.txt" -- \
                "${NCCL_LOG_ENV[@]}" "${COURSE[@]}" bench all_reduce --nproc "$NPROC" \
                --backend nccl -b 8 -e "$MAXBYTES" -n 1 -w 1 -c 0 \
                --json "$OUT/nccl-log-run.json" --no-plot --no-progress
        fi
    else
        skip "bench all_reduce" "one GPU: a collective on one rank moves no data; NCCL needs a GPU per rank"
    fi
fi

# NCCL's own tuner, logged above, against the course's model of it. A difference is a finding
# about the model (see model-vs-nccl-log.txt), not a failed check, so it only adds a note.
if [ "$BACKEND" = nccl ] && [ "$NODE_RANK" -eq 0 ] && [ "$NPROC" -ge 2 ]; then
    LOG=$(grep -l "NCCL INFO comm 0x[0-9a-f]* rank 0 nRanks" "$OUT"/nccl-log.* 2> /dev/null | head -n 1)
    SM=$("$PY" -c "import torch; a, b = torch.cuda.get_device_capability(); print(10 * a + b)")
    if [ -n "$LOG" ]; then
        "${COURSE[@]}" model --check-log "$LOG" --sm "$SM" > "$OUT/model-vs-nccl-log.txt" 2>&1
        CHECK=$?
        if [ "$CHECK" -eq 2 ] && grep -q "no tuner model" "$OUT/model-vs-nccl-log.txt"; then
            # A release the model does not have: compare with the newest it has.
            "${COURSE[@]}" model --check-log "$LOG" --sm "$SM" --nccl-version 2.30.7 \
                >> "$OUT/model-vs-nccl-log.txt" 2>&1
            CHECK=$?
        fi
        note "INFO  NCCL's tuner vs the model (exit $CHECK): $(grep -E '^(NCCL [0-9.]+ tuner|table cells|calls|error)' "$OUT/model-vs-nccl-log.txt" | tr '\n' ';')"
        "${COURSE[@]}" doctor --nccl-log "$LOG" --nodes "$NNODES" > "$OUT/doctor-nccl-log.txt" 2>&1
        note "INFO  transports in NCCL's log: $(grep -E 'NCCL transports' "$OUT/doctor-nccl-log.txt" | head -n 1 | sed 's/^ *//')"
    else
        note "INFO  no rank-0 NCCL log in $OUT to compare with the model"
    fi
fi

finish
