/* The course's cost model in the browser: a mirror of nccl_course.cost (formulas, model,
 * busbw, training) for the book's in-page explorers, which run with no kernel.
 *
 * Nothing here states a preset, an algorithm list or a schedule: they come from the data the
 * Sphinx extension exports from the Python package (nccl_course.viz.explorer_data), passed to
 * createCostModel(data). The formulas below are the package's, written again in JavaScript;
 * tests/viz/test_cost_model_js.py runs this file in Node against the Python package on a dense
 * grid (relative difference <= 1e-9). Units: bytes, seconds, GB/s = 1e9 bytes/s.
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory();
  } else {
    root.NcclCostModel = factory();
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  // -- integer helpers (nccl_course.intmath) ------------------------------------------------
  function ceilLog2(p) {
    let n = 0;
    while (2 ** n < p) n += 1;
    return n;
  }
  function floorPow2(p) {
    let x = 1;
    while (x * 2 <= p) x *= 2;
    return x;
  }
  function log2Exact(pow2) {
    let n = 0;
    while (2 ** n < pow2) n += 1;
    return n;
  }

  // -- closed forms (nccl_course.cost.formulas) ---------------------------------------------
  function fold(p) {
    const p2 = floorPow2(p);
    const r = p - p2;
    const lg2 = log2Exact(p2);
    let blocks = 0;
    for (let i = 0; i < lg2; i += 1) blocks += 2 ** i + Math.min(2 ** i, r);
    return [lg2, r, blocks];
  }
  function heapDepth(p) {
    return log2Exact(floorPow2(p));
  }
  function binaryTreePieceSteps(p, k) {
    const depth = heapDepth(p);
    const steps = depth + k - 1;
    if (p === 2) return [steps, steps];
    return [steps, 2 * steps - (p === 2 ** depth ? 1 : 0)];
  }
  const F = {
    ringAllgather: (n, p, a, b) => (p - 1) * a + ((n * (p - 1)) / p) * b,
    doublingAllgather(n, p, a, b) {
      const [lg2, r, blocks] = fold(p);
      if (r === 0) return lg2 * a + ((n * (p - 1)) / p) * b;
      return (lg2 + 2) * a + (n / p) * (1 + blocks + (p - 1)) * b;
    },
    bruckAllgather: (n, p, a, b) => ceilLog2(p) * a + ((n * (p - 1)) / p) * b,
    ringReduceScatter: (n, p, a, b, g) => (p - 1) * a + ((n * (p - 1)) / p) * (b + g),
    halvingReduceScatter(n, p, a, b, g) {
      const [lg2, r, blocks] = fold(p);
      if (r === 0) return lg2 * a + ((n * (p - 1)) / p) * (b + g);
      return (lg2 + 2) * a + n * (b + g) + (n / p) * blocks * (b + g) + (n / p) * b;
    },
    ringAllreduce: (n, p, a, b, g) =>
      2 * (p - 1) * a + ((2 * n * (p - 1)) / p) * b + ((n * (p - 1)) / p) * g,
    rabenseifnerAllreduce(n, p, a, b, g) {
      const p2 = floorPow2(p);
      const lg2 = log2Exact(p2);
      const core = 2 * lg2 * a + ((2 * n * (p2 - 1)) / p2) * b + ((n * (p2 - 1)) / p2) * g;
      if (p === p2) return core;
      return core + (a + (n / 2) * (b + g)) + (a + (n / 2) * b) + (a + n * b);
    },
    doublingAllreduce(n, p, a, b, g) {
      const p2 = floorPow2(p);
      const lg2 = log2Exact(p2);
      if (p === p2) return lg2 * (a + n * b + n * g);
      return (lg2 + 2) * (a + n * b) + (lg2 + 1) * n * g;
    },
    reduceBroadcastAllreduce(n, p, a, b, g) {
      const lg = ceilLog2(p);
      return 2 * lg * (a + n * b) + lg * n * g;
    },
    binaryTreeBroadcast(n, p, a, b, g, k) {
      const [steps, pieces] = binaryTreePieceSteps(p, k);
      return steps * a + ((pieces * n) / k) * b;
    },
    binaryTreeReduce(n, p, a, b, g, k) {
      const [steps, pieces] = binaryTreePieceSteps(p, k);
      return steps * a + ((pieces * n) / k) * (b + g);
    },
    doubleBinaryTreeAllreduce(n, p, a, b, g, k) {
      return F.binaryTreeReduce(n / 2, p, a, b, g, k) + F.binaryTreeBroadcast(n / 2, p, a, b, g, k);
    },
    pairwiseAlltoall: (n, p, a, b) => (p - 1) * a + ((n * (p - 1)) / p) * b,
    bruckAlltoall(n, p, a, b) {
      const lg = ceilLog2(p);
      let moved = 0;
      for (let i = 0; i < lg; i += 1) {
        for (let delta = 0; delta < p; delta += 1) if ((delta >> i) & 1) moved += 1;
      }
      return lg * a + (n / p) * moved * b;
    },
    chainBroadcast: (n, p, a, b, g, k) => (p === 1 ? 0 : (p + k - 2) * (a + (n / k) * b)),
    chainReduce: (n, p, a, b, g, k) => (p === 1 ? 0 : (p + k - 2) * (a + (n / k) * (b + g))),
    binomialBroadcast: (n, p, a, b) => ceilLog2(p) * (a + n * b),
    binomialReduce: (n, p, a, b, g) => ceilLog2(p) * (a + n * b + n * g),
    directGather: (n, p, a, b) => a + ((n * (p - 1)) / p) * b,
    binomialGather: (n, p, a, b) => ceilLog2(p) * a + ((n * (p - 1)) / p) * b,
    sendRecv: (n, p, a, b) => a + n * b,
    disseminationBarrier: (n, p, a) => ceilLog2(p) * a,
  };
  // "collective/algorithm" -> formula; the Node test checks this covers CLOSED_FORMS exactly.
  const CLOSED_FORMS = {
    "broadcast/ring": F.chainBroadcast,
    "broadcast/binary_tree": F.binaryTreeBroadcast,
    "broadcast/binomial_tree": F.binomialBroadcast,
    "reduce/ring": F.chainReduce,
    "reduce/binary_tree": F.binaryTreeReduce,
    "reduce/binomial_tree": F.binomialReduce,
    "all_reduce/ring": F.ringAllreduce,
    "all_reduce/rabenseifner": F.rabenseifnerAllreduce,
    "all_reduce/recursive_doubling": F.doublingAllreduce,
    "all_reduce/double_binary_tree": F.doubleBinaryTreeAllreduce,
    "all_reduce/reduce_broadcast": F.reduceBroadcastAllreduce,
    "all_gather/ring": F.ringAllgather,
    "all_gather/recursive_doubling": F.doublingAllgather,
    "all_gather/bruck": F.bruckAllgather,
    "reduce_scatter/ring": F.ringReduceScatter,
    "reduce_scatter/recursive_halving": F.halvingReduceScatter,
    "all_to_all/pairwise": F.pairwiseAlltoall,
    "all_to_all/bruck": F.bruckAlltoall,
    "gather/direct": F.directGather,
    "gather/binomial_tree": F.binomialGather,
    "scatter/direct": F.directGather,
    "scatter/binomial_tree": F.binomialGather,
    "send_recv/direct": F.sendRecv,
    "barrier/dissemination": F.disseminationBarrier,
  };

  /** closed_form_time: seconds for n bytes on p ranks (alpha s, beta s/B, gamma s/B). */
  function closedFormTime(collective, algorithm, n, p, alpha, beta, gamma = 0, k = 1) {
    const form = CLOSED_FORMS[`${collective}/${algorithm}`];
    if (!form) throw new Error(`no closed form for ${collective}/${algorithm}`);
    if (p < 1) throw new Error(`rank count must be at least 1, got ${p}`);
    if (p === 1) return 0;
    return form(n, p, alpha, beta, gamma, k);
  }

  // -- busbw (nccl_course.collectives BUSBW_FORMULAS, cost.busbw) ---------------------------
  const BUSBW_FORMULAS = {
    "2(p-1)/p": (p) => (2 * (p - 1)) / p,
    "(p-1)/p": (p) => (p - 1) / p,
    1: () => 1.0,
  };

  function createCostModel(data) {
    const { presets, model, stepCosts, schedules, training } = data;

    function preset(name) {
      const p = presets[name];
      if (!p) throw new Error(`unknown preset ${name}; known: ${Object.keys(presets).join(", ")}`);
      return p;
    }

    function busbwFactor(collective, p) {
      if (p < 1) throw new Error(`rank count must be at least 1, got ${p}`);
      const c = model.collectives[collective];
      if (!c || c.busbwFormula === null) {
        throw new Error(`unknown collective ${collective} (or one without a bus bandwidth)`);
      }
      return BUSBW_FORMULAS[c.busbwFormula](p);
    }

    function algbw(sizeBytes, seconds) {
      if (seconds <= 0) throw new Error(`time must be positive, got ${seconds} s`);
      return sizeBytes / seconds / 1e9;
    }

    function busbw(collective, sizeBytes, seconds, p) {
      return algbw(sizeBytes, seconds) * busbwFactor(collective, p);
    }

    // -- model.py -----------------------------------------------------------------------------
    function algorithmsFor(collective, presetName) {
      const algos = model.algorithms[collective];
      if (!algos) throw new Error(`unknown collective ${collective}`);
      if (collective === "all_reduce" && preset(presetName).in_network_reduction) {
        return algos.concat(["nvls"]);
      }
      return algos.slice();
    }

    function nvlsAllreduceTime(sizeBytes, p, alpha, bandwidth) {
      if (p === 1) return 0;
      return 2 * alpha + ((1 + 1 / p) * sizeBytes) / bandwidth;
    }

    function stepTime(compressed, size) {
      const [gammaTotal, groups] = compressed;
      let total = 0;
      for (const g of groups) {
        let worst = -Infinity;
        for (let i = 1; i < g.length; i += 2) {
          const t = g[i] + g[i + 1] * size;
          if (t > worst) worst = t;
        }
        total += g[0] * worst;
      }
      return total + gammaTotal * size;
    }

    /** sweep_times for one size: [seconds, best pipeline depth]. */
    function timeOf(collective, algorithm, size, presetName, ranks) {
      const pre = preset(presetName);
      const p = ranks === undefined || ranks === null ? pre.ranks : ranks;
      if (algorithm === "nvls") {
        if (collective !== "all_reduce" || !pre.in_network_reduction) {
          throw new Error("nvls is an all_reduce algorithm of the *-nvls presets only");
        }
        return [nvlsAllreduceTime(size, p, pre.alpha_s, pre.bandwidth_Bps), 1];
      }
      const byRanks = stepCosts[pre.topology][collective]?.[algorithm];
      if (!byRanks) throw new Error(`no algorithm ${algorithm} for ${collective}`);
      const byDepth = byRanks[String(p)];
      if (!byDepth) {
        throw new Error(`ranks ${p} not exported; choose one of ${model.rankChoices.join(", ")}`);
      }
      let best = null;
      for (const k of model.pipelineDepths) {
        const entry = byDepth[String(k)];
        if (entry === undefined) continue;
        const t = stepTime(entry, size);
        if (best === null || t < best[0]) best = [t, k];
      }
      return best;
    }

    function sweepTimes(collective, algorithm, sizes, presetName, ranks) {
      const times = [];
      const depths = [];
      for (const s of sizes) {
        const [t, k] = timeOf(collective, algorithm, s, presetName, ranks);
        times.push(t);
        depths.push(k);
      }
      return [times, depths];
    }

    /** predict(): the fastest algorithm (or the one given) and its time, algbw and busbw. */
    function predict(collective, sizeBytes, presetName, { ranks = null, algorithm = null } = {}) {
      const pre = preset(presetName);
      const p = ranks === null ? pre.ranks : ranks;
      if (p < 1) throw new Error(`rank count must be at least 1, got ${p}`);
      if (sizeBytes < 0) throw new Error(`size must be non-negative, got ${sizeBytes}`);
      const candidates = algorithm ? [algorithm] : algorithmsFor(collective, presetName);
      let best = null;
      for (const algo of candidates) {
        const [t, k] = timeOf(collective, algo, sizeBytes, presetName, p);
        if (best === null || t < best.time_s) best = { algorithm: algo, time_s: t, chunks: k };
      }
      let algbwGBps = 0;
      let busbwGBps = 0;
      if (!(collective === "barrier" || best.time_s <= 0 || sizeBytes === 0)) {
        algbwGBps = sizeBytes / best.time_s / 1e9;
        busbwGBps = algbwGBps * busbwFactor(collective, p);
      }
      return {
        collective,
        algorithm: best.algorithm,
        preset: presetName,
        ranks: p,
        size_bytes: sizeBytes,
        time_s: best.time_s,
        algbw_GBps: algbwGBps,
        busbw_GBps: busbwGBps,
        chunks: best.chunks,
      };
    }

    /** crossovers(): sizes (log-interpolated) where algorithm a and b swap places. */
    function crossovers(sizes, timesA, timesB) {
      const points = [];
      const sign = (x) => (x > 0 ? 1 : x < 0 ? -1 : 0);
      for (let i = 0; i + 1 < sizes.length; i += 1) {
        const d0 = timesA[i] - timesB[i];
        const d1 = timesA[i + 1] - timesB[i + 1];
        if (sign(d0) * sign(d1) < 0) {
          const x0 = Math.log(sizes[i]);
          const x1 = Math.log(sizes[i + 1]);
          points.push(Math.exp(x0 - (d0 * (x1 - x0)) / (d1 - d0)));
        }
      }
      return points;
    }

    /** viz.plots.comparison_data: times per algorithm, the fastest per size, the switches. */
    function comparisonData(collective, presetName, { sizes = null, ranks = null } = {}) {
      const pre = preset(presetName);
      const xs = sizes || model.defaultSizes;
      const algos = algorithmsFor(collective, presetName);
      const times = {};
      for (const a of algos) times[a] = sweepTimes(collective, a, xs, presetName, ranks)[0];
      const bestIdx = xs.map((_, i) => {
        let j = 0;
        for (let m = 1; m < algos.length; m += 1) if (times[algos[m]][i] < times[algos[j]][i]) j = m;
        return j;
      });
      const switches = [];
      for (let i = 0; i + 1 < xs.length; i += 1) {
        if (bestIdx[i + 1] !== bestIdx[i]) {
          const a = algos[bestIdx[i]];
          const b = algos[bestIdx[i + 1]];
          const pts = crossovers(xs.slice(i, i + 2), times[a].slice(i, i + 2), times[b].slice(i, i + 2));
          switches.push([pts.length ? pts[0] : xs[i + 1], a, b]);
        }
      }
      return {
        sizes: xs,
        times,
        best: bestIdx.map((j) => algos[j]),
        switches,
        ranks: ranks === null ? pre.ranks : ranks,
      };
    }

    // -- schedules (exported from nccl_course.sim) --------------------------------------------
    /** Bytes each rank sends and receives in each step: {sent: [[..p], ..], received, steps}. */
    function scheduleBytes(collective, algorithm, ranks, chunks, sizeBytes) {
      const entry = schedules[collective]?.[algorithm]?.[String(ranks)]?.[String(chunks)];
      if (!entry) throw new Error(`schedule ${collective}/${algorithm} p=${ranks} k=${chunks} not exported`);
      const perChunk = entry.sizeChunks ? sizeBytes / entry.sizeChunks : 0;
      const scale = (rows) => rows.map((row) => row.map((c) => c * perChunk));
      return { steps: entry.sent.length, sent: scale(entry.sent), received: scale(entry.received) };
    }

    // -- training.py --------------------------------------------------------------------------
    function checkPositive(values) {
      for (const [name, v] of Object.entries(values)) {
        if (v < 1) throw new Error(`${name} must be at least 1, got ${v}`);
      }
    }
    function call(collective, sizeBytes, ranks, count, phase, what) {
      return { collective, size_bytes: sizeBytes, ranks, count, phase, what };
    }
    function parameters(shape) {
      return 12 * shape.layers * shape.hidden ** 2 + shape.vocab * shape.hidden;
    }
    function activationElements(shape) {
      return shape.micro_batch * shape.seq_len * shape.hidden;
    }
    function ddpBucketSizes(gradientBytes, bucketBytes = training.ddpBucketBytes, firstBucketBytes = training.ddpFirstBucketBytes) {
      checkPositive({ gradient_bytes: gradientBytes, bucket_bytes: bucketBytes });
      const first = Math.min(firstBucketBytes, gradientBytes);
      const sizes = [first];
      const rest = gradientBytes - first;
      const full = Math.floor(rest / bucketBytes);
      const tail = rest - full * bucketBytes;
      for (let i = 0; i < full; i += 1) sizes.push(bucketBytes);
      if (tail) sizes.push(tail);
      return sizes;
    }
    function ddpCalls(params, dp, gradBytes = 2, bucketBytes = training.ddpBucketBytes, firstBucketBytes = training.ddpFirstBucketBytes) {
      checkPositive({ parameters: params, dp, grad_bytes: gradBytes });
      const counts = new Map();
      for (const s of ddpBucketSizes(params * gradBytes, bucketBytes, firstBucketBytes)) {
        counts.set(s, (counts.get(s) || 0) + 1);
      }
      return [...counts].map(([s, n]) => call("all_reduce", s, dp, n, "backward", "gradient bucket"));
    }
    function zero3Calls(params, dp, units, paramBytes = 2, gradBytes = 2) {
      checkPositive({ parameters: params, dp, units });
      const unitParams = Math.floor(params / units);
      const gather = unitParams * paramBytes;
      const scatter = unitParams * gradBytes;
      return [
        call("all_gather", gather, dp, units, "forward", "parameters of a unit"),
        call("all_gather", gather, dp, units, "backward", "parameters of a unit"),
        call("reduce_scatter", scatter, dp, units, "backward", "gradients of a unit"),
      ];
    }
    function tensorParallelCalls(shape, tp, actBytes = 2, sequenceParallel = false, microBatches = 1) {
      checkPositive({ tp, act_bytes: actBytes, micro_batches: microBatches });
      const size = activationElements(shape) * actBytes;
      const perPhase = 2 * shape.layers * microBatches;
      const out = [];
      for (const phase of ["forward", "backward"]) {
        if (!sequenceParallel) {
          out.push(call("all_reduce", size, tp, perPhase, phase, "layer activations"));
        } else {
          out.push(call("all_gather", size, tp, perPhase, phase, "sequence shards"));
          out.push(call("reduce_scatter", size, tp, perPhase, phase, "sequence shards"));
        }
      }
      return out;
    }
    function bytesSentPerRank(calls) {
      return calls.reduce((t, c) => t + busbwFactor(c.collective, c.ranks) * c.size_bytes * c.count, 0);
    }
    function totalCalls(calls) {
      return calls.reduce((t, c) => t + c.count, 0);
    }
    function timeAlphaBeta(calls, alpha, beta, gamma = 0) {
      let total = 0;
      for (const c of calls) {
        let one;
        if (c.collective === "send_recv") one = alpha + c.size_bytes * beta;
        else if (c.collective === "all_to_all") {
          one = closedFormTime("all_to_all", "pairwise", c.size_bytes, c.ranks, alpha, beta);
        } else one = closedFormTime(c.collective, "ring", c.size_bytes, c.ranks, alpha, beta, gamma);
        total += c.count * one;
      }
      return total;
    }
    function timeOnPreset(calls, presetName) {
      let total = 0;
      for (const c of calls) {
        total += c.count * predict(c.collective, c.size_bytes, presetName, { ranks: c.ranks }).time_s;
      }
      return total;
    }

    // -- NCCL's tuner (nccl_course.cost.nccl: tuner.time_us, select.choose, estimate.predict) --
    const N = data.nccl;

    function ncclSystem(presetName, ranks) {
      const p = ranks === null || ranks === undefined ? preset(presetName).ranks : ranks;
      const sys = N.systems[presetName]?.[String(p)];
      if (!sys) throw new Error(`NCCL's model has no ${p}-rank system for ${presetName}`);
      return sys;
    }

    function ncclTimeUs(sys, fn, algorithm, protocol, nBytes) {
      const f = N.functions.indexOf(fn);
      const a = N.algorithms.indexOf(algorithm);
      const p = N.protocols.indexOf(protocol);
      let bw = sys.bandwidth_GBps[f][a][p];
      let lat = sys.latency_us[f][a][p];
      if (bw === 0) return -1;
      const q = Math.floor(nBytes / 64);
      const logSize = q > 0 ? Math.floor(Math.log2(q)) - (2 ** Math.floor(Math.log2(q)) > q ? 1 : 0) : -1;
      if (algorithm === "Tree" && fn === "AllReduce" && logSize >= 0 && logSize < 23) {
        bw *= N.treeCorrection[p][logSize];
      }
      if (algorithm === "NVLSTree" && fn === "AllReduce" && logSize >= 0 && logSize < 24 && sys.cc >= 100) {
        bw *= N.treeCorrection[p][logSize];
      }
      if (
        algorithm === "Ring" &&
        protocol === "Simple" &&
        sys.nodes > 1 &&
        fn === "AllReduce" &&
        Math.floor(nBytes / (sys.commChannels * sys.ranks)) >= 64
      ) {
        lat *= sys.cc < 80 ? 1.9 : 1.4;
      }
      return lat + nBytes / (1000 * bw);
    }

    function ncclCandidates(sys, fn, nBytes) {
      const out = {};
      for (const algorithm of N.algorithms) {
        for (const protocol of N.protocols) {
          const key = `${algorithm}/${protocol}`;
          if (sys.ranks === 1) {
            out[key] = key === "Ring/Simple" ? 0 : -1;
            continue;
          }
          const nvls = algorithm === "NVLS" || algorithm === "NVLSTree";
          const ignored =
            algorithm === "CollNetDirect" ||
            algorithm === "CollNetChain" ||
            (nvls && !sys.nvlsSupport) ||
            (nvls && fn !== "AllReduce" && sys.gpusPerNode > N.maxNvlsArity) ||
            (algorithm === "NVLS" && sys.nodes > 1);
          out[key] = ignored ? -1 : ncclTimeUs(sys, fn, algorithm, protocol, nBytes);
        }
      }
      return out;
    }

    function ncclChannelsThreads(sys, algorithm, protocol, nBytes) {
      const a = N.algorithms.indexOf(algorithm);
      const p = N.protocols.indexOf(protocol);
      let nc = sys.commChannels;
      let nt = sys.maxThreads[a][p];
      const threshold = sys.threadThreshold[a][p];
      if (algorithm === "NVLS" || algorithm === "NVLSTree") {
        nc = sys.nvlsChannels;
        if (sys.nodes > 1 && algorithm === "NVLS") nc = Math.min(sys.nvlsChannels, sys.commChannels);
      } else {
        while (nBytes < nc * nt * threshold && nc >= 2) nc -= 1;
        while (nBytes < nc * nt * threshold && nt % 128 === 0 && nt) nt = Math.floor(nt / 2);
      }
      if (protocol === "Simple") nt += { Ring: N.warpSize, Tree: 4 * N.warpSize }[algorithm] || 0;
      nt = Math.max(nt, 3 * N.warpSize);
      if (algorithm === "Tree" || algorithm === "PAT") nt = N.maxNthreads;
      return [nc, nt];
    }

    /** call_cost.call_cost: what the call costs beside NCCL's estimate (us, term by term). */
    function ncclCallCost(sys, protocol, channels, latencyUs, estimateUs, nBytes, harness, networkBound, transferUs = null) {
      const CC = N.callCost;
      const name = harness || CC.defaultHarness;
      if (!(name in CC.harnesses)) throw new Error(`unknown harness ${name}`);
      const net = sys.nodes > 1 && sys.network ? CC.networks[sys.network] : null;
      const transfer = transferUs === null ? Math.max(0, estimateUs - latencyUs) : transferUs;
      // the network's share slows only the algorithms whose bandwidth the network sets
      const efficiency = net && networkBound ? net.efficiency : 1;
      let fill = 0;
      if (nBytes > 0 && transfer > 0) {
        const cap = Math.max(1, channels) * CC.bufferBytes[protocol];
        const inFlight = (nBytes * cap) / (nBytes + cap);
        fill = (CC.fillFraction[protocol] * transfer * inFlight) / nBytes;
      }
      return {
        fixed_us: CC.harnesses[name],
        network_us: net ? net.latency_us : 0,
        latency_us: latencyUs,
        fill_us: fill / efficiency,
        transfer_us: transfer / efficiency,
      };
    }

    /** estimate._prediction: a call NCCL runs as algorithm/protocol on ``channels``, which it
     * estimates at ``estimateUs`` (``latencyUs`` at 0 bytes): its bandwidths, and what the call
     * costs as ``harness`` times it. */
    function ncclResult(collective, sizeBytes, presetName, sys, harness, run) {
      const seconds = run.estimateUs * 1e-6;
      const factor = busbwFactor(collective, sys.ranks);
      const bandwidths = (s) => (s > 0 && sizeBytes > 0 ? [sizeBytes / s / 1e9, (sizeBytes / s / 1e9) * factor] : [0, 0]);
      const [algbwGBps, busbwGBps] = bandwidths(seconds);
      const networkBound = run.networkBound && sys.nodes > 1;
      // estimate.node_nvls_busbw: an NVLSTree call NVLink SHARP bounds moves at one node's NVLS rate
      const transferUs =
        run.algorithm === "NVLSTree" && !networkBound && sys.nodeNvlsBusbw > 0 ? (sizeBytes * factor) / (1e3 * sys.nodeNvlsBusbw) : null;
      // hop_latency: Blackwell's NVLink hops add to the call's latency, not to NCCL's estimate
      const hops = run.hopExtraUs || 0;
      const terms = ncclCallCost(sys, run.protocol, run.channels, run.latencyUs + hops, run.estimateUs + hops, sizeBytes, harness, networkBound, transferUs);
      const callSeconds = Object.values(terms).reduce((a, b) => a + b, 0) * 1e-6;
      const [callAlgbw, callBusbw] = bandwidths(callSeconds);
      return {
        collective,
        preset: presetName,
        ranks: sys.ranks,
        nodes: sys.nodes,
        size_bytes: sizeBytes,
        algorithm: run.algorithm,
        protocol: run.protocol,
        channels: run.channels,
        threads: run.threads,
        time_s: seconds,
        algbw_GBps: algbwGBps,
        busbw_GBps: busbwGBps,
        candidates: run.candidates,
        harness: harness || N.callCost.defaultHarness,
        call_time_s: callSeconds,
        call_algbw_GBps: callAlgbw,
        call_busbw_GBps: callBusbw,
        call_terms_us: terms,
        network_bound: networkBound,
      };
    }

    /** p2p.plan: an all_to_all as NCCL runs it, grouped sends and receives of size / ranks bytes
     * to every rank, each on its own channels; the call lasts as long as the slower path. */
    function ncclP2pRun(sys, sizeBytes) {
      const P = sys.p2p;
      const n = sys.ranks;
      const several = sys.nodes > 1;
      let nMin = P.maxPerPeer;
      while (nMin * n > P.channels && nMin > 1) nMin = Math.floor(nMin / 2);
      const peer = sizeBytes / n;
      // addP2pToPlan: channels for one send (or receive) of the peer's bytes
      const peerBytes = Math.trunc(peer);
      let perPeer = 1;
      if (peerBytes > 0) {
        const minPart = several ? Math.floor(P.chunk / 2) : Math.floor(P.chunk / 8);
        const maxPart = several ? P.chunk : P.chunk * 32;
        perPeer = Math.min(nMin, Math.ceil(peerBytes / minPart));
        let part = Math.max(minPart, Math.ceil(peerBytes / perPeer));
        while (part > maxPart && perPeer <= Math.floor(P.maxPerPeer / 2)) {
          perPeer *= 2;
          part = Math.ceil(peerBytes / perPeer);
        }
      }
      const protocol = peer <= perPeer * N.p2pLlThreshold ? "LL" : "Simple";
      const share = protocol === "LL" ? N.llDataShare : 1;
      const paths = [
        [peer * (sys.gpusPerNode - 1), P.intraGBps * share],
        [peer * (n - sys.gpusPerNode), P.interGBps * share],
      ];
      const transfer = Math.max(0, ...paths.filter(([bytes]) => bytes).map(([bytes, rate]) => bytes / (rate * 1e3)));
      const latencyUs = P.latency_us[protocol];
      return {
        algorithm: "P2P",
        networkBound: true,
        protocol,
        channels: Math.min(P.channels, (n - 1) * perPeer),
        threads: N.maxNthreads,
        latencyUs,
        estimateUs: latencyUs + transfer,
        candidates: { [`P2P/${protocol}`]: latencyUs + transfer },
      };
    }

    /** nccl.predict (default NCCL_ALGO / NCCL_PROTO): NCCL's pick, channels, its estimate and
     * what the call costs as ``harness`` times it; all_to_all as grouped sends and receives. */
    function ncclPredict(collective, sizeBytes, presetName, { ranks = null, harness = null } = {}) {
      const p2p = N.p2pCollectives.includes(collective);
      const fn = N.courseToFunction[collective];
      if (!fn && !p2p) throw new Error(`NCCL's model does not price ${collective}`);
      if (sizeBytes < 0) throw new Error(`size must be non-negative, got ${sizeBytes}`);
      const sys = ncclSystem(presetName, ranks);
      if (p2p) return ncclResult(collective, sizeBytes, presetName, sys, harness, ncclP2pRun(sys, sizeBytes));
      const candidates = ncclCandidates(sys, fn, sizeBytes);
      let best = null;
      let bestTime = Infinity;
      for (const [key, t] of Object.entries(candidates)) {
        if (t >= 0 && t < bestTime) {
          best = key;
          bestTime = t;
        }
      }
      if (best === null) throw new Error(`No algorithm/protocol available for function ${fn}`);
      const [algorithm, protocol] = best.split("/");
      const [channels, threads] = ncclChannelsThreads(sys, algorithm, protocol, sizeBytes);
      const latencyUs = ncclTimeUs(sys, fn, algorithm, protocol, 0);
      const [f, a, p] = [N.functions.indexOf(fn), N.algorithms.indexOf(algorithm), N.protocols.indexOf(protocol)];
      const networkBound = sys.networkBound[f][a];
      const hopExtraUs = sys.hopExtraUs[f][a][p];
      return ncclResult(collective, sizeBytes, presetName, sys, harness, { algorithm, protocol, channels, threads, latencyUs, estimateUs: bestTime, candidates, networkBound, hopExtraUs });
    }

    function ncclRanks(presetName) {
      return Object.keys(N.systems[presetName] || {}).map(Number);
    }

    return {
      data,
      presets,
      closedFormTime,
      busbwFactor,
      algbw,
      busbw,
      algorithmsFor,
      nvlsAllreduceTime,
      sweepTimes,
      predict,
      crossovers,
      comparisonData,
      scheduleBytes,
      nccl: { predict: ncclPredict, ranks: ncclRanks, collectives: () => Object.keys(N.courseToFunction).concat(N.p2pCollectives), harnesses: () => Object.keys(N.callCost.harnesses), version: N.version },
      training: {
        parameters,
        activationElements,
        ddpBucketSizes,
        ddpCalls,
        zero3Calls,
        tensorParallelCalls,
        bytesSentPerRank,
        totalCalls,
        timeAlphaBeta,
        timeOnPreset,
        shapes: training.shapes,
      },
    };
  }

  return { createCostModel, closedFormTime, CLOSED_FORMS, BUSBW_FORMULAS, ceilLog2, floorPow2 };
});
