#!/usr/bin/env bash
# End-to-end tests of `npugap comm` and `npugap comm dp`: the table, the JSON keys, and every
# bad-input path (one-line error naming the flag / value, exit code 2, nothing on stdout).
set -uo pipefail
NPUGAP=${1:?usage: comm_cli_test.sh NPUGAP_BINARY}
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cli_test_begin

json_get() {  # json_get FILE PYTHON_EXPR(j)
  python3 -c "import json,sys; j=json.load(open('$1')); print($2)"
}

# ---- the main job -----------------------------------------------------------
"$NPUGAP" comm --cluster atlas800t-a2 --ranks 16 --op allreduce --bytes 8M:64M:x2 > "$TMP/table" 2> "$TMP/err"
check "table exit 0" test $? -eq 0
# HCCL's A2 selection between two servers: ring below 2 MiB per slice (8M, 16M), pipeline from it.
check "table: ring below 2 MiB per slice" test "$(grep -c 'level0:fullmesh;level1:ring' "$TMP/table")" -eq 2
check "table: pipeline from 2 MiB per slice" test "$(grep -c 'level0:pipeline;level1:pipeline' "$TMP/table")" -eq 2
check "table header" grep -q 'busbw(GB/s)' "$TMP/table"
check "table names the dispatch cost" grep -q '^# host dispatch per collective: 1755.6 us (derived' "$TMP/table"

# Host dispatch: once per collective, left out with --no-dispatch.
"$NPUGAP" comm --cluster a2 --ranks 8 --bytes 1M --json > "$TMP/d1.json"
"$NPUGAP" comm --cluster a2 --ranks 8 --bytes 1M --json --no-dispatch > "$TMP/d0.json"
check "dispatch adds its cost" test "$(python3 -c "import json; a=json.load(open('$TMP/d1.json'))['rows'][0]; b=json.load(open('$TMP/d0.json'))['rows'][0]; print(round(a['time_us']-b['time_us'],3), round(a['dispatch_us'],3), b['dispatch_us'])")" = "1755.6 1755.6 0.0"

# HCCL's <= 256 KiB one-server small-count executor: reduce-bcast, 86/186 of the host dispatch.
"$NPUGAP" comm --cluster a2 --ranks 8 --bytes 256K:512K --json > "$TMP/small.json"
check "small count: reduce-bcast to 256 KiB, mesh above" test "$(json_get "$TMP/small.json" \
  "[r['algo'] for r in j['rows']]")" = "['level0:reduce-bcast', 'level0:fullmesh']"
check "small count: the root's share of the dispatch" test "$(json_get "$TMP/small.json" \
  "[round(r['dispatch_us'], 2) for r in j['rows']]")" = "[811.73, 1755.6]"
"$NPUGAP" comm --cluster a2 --ranks 8 --bytes 8K > "$TMP/small_table"
check "small count: the table says its dispatch" grep -q '^# reduce-bcast rows .*: 811.7 us' "$TMP/small_table"

"$NPUGAP" comm --cluster cloudmatrix384 --ranks 768 --op allgather --bytes 1G --sim analytical --json > "$TMP/a3.json"
check "json exit 0" test $? -eq 0
check "json row keys" test "$(json_get "$TMP/a3.json" "sorted(j['rows'][0].keys())")" = \
  "['algbw_gbps', 'algo', 'busbw_gbps', 'bytes', 'dispatch_us', 'rounds', 'time_us']"
check "json bytes" test "$(json_get "$TMP/a3.json" "int(j['rows'][0]['bytes'])")" = 1073741824
check "json busbw = algbw*(n-1)/n" test "$(json_get "$TMP/a3.json" \
  "abs(j['rows'][0]['busbw_gbps'] - j['rows'][0]['algbw_gbps']*767/768) < 1e-9")" = True
check "json rounds 6" test "$(json_get "$TMP/a3.json" "j['rows'][0]['rounds']")" = 6

"$NPUGAP" comm --cluster atlas800t-a2 --ranks 64 --bytes 256M --sim flow --algo 'level0:NA;level1:H-D_R' --json > "$TMP/flow.json"
check "flow exit 0" test $? -eq 0
check "flow algo" test "$(json_get "$TMP/flow.json" "j['rows'][0]['algo']")" = "level0:fullmesh;level1:H-D_R"

"$NPUGAP" comm --cluster atlas800t-a2 --ranks 16 --bytes 64M --straggler 3:200000 --json > "$TMP/late.json"
check "straggler exit 0" test $? -eq 0
check "straggler EI0006" test "$(json_get "$TMP/late.json" "j['timeouts']['errors'][0]['class'][:6]")" = EI0006
check "straggler ranks" test "$(json_get "$TMP/late.json" "j['timeouts']['errors'][0]['ranks']")" = "all but 3"

"$NPUGAP" comm --cluster atlas800t-a2 --ranks 16 --bytes 64M --link-fault 9:scale-out:0 > "$TMP/fail.txt"
check "failed link reported" grep -q 'RDMA retry exhausted' "$TMP/fail.txt"

"$NPUGAP" comm --cluster atlas800t-a2 --ranks 1024 --bytes 256M --sim flow --random-stragglers 4:2 --json > "$TMP/rs.json"
check "random stragglers exit 0" test $? -eq 0
# A 4:1 oversubscribed fabric of 8 NICs per leaf makes H-D_R's cross-leaf steps slower in the flow model.
"$NPUGAP" comm --cluster atlas800t-a2 --ranks 256 --bytes 256M --sim flow --algo 'level0:NA;level1:H-D_R' --json > "$TMP/f1.json"
"$NPUGAP" comm --cluster atlas800t-a2 --ranks 256 --bytes 256M --sim flow --algo 'level0:NA;level1:H-D_R' \
  --nics-per-leaf 8 --oversubscription 4 --json > "$TMP/f4.json"
check "oversubscription slows" test "$(python3 -c "import json; a=json.load(open('$TMP/f1.json')); b=json.load(open('$TMP/f4.json')); print(b['rows'][0]['time_us'] > 1.5*a['rows'][0]['time_us'])")" = True
"$NPUGAP" comm dp --cluster atlas800t-a2 --grad-bytes 1400M --backward-ms 200 --json > "$TMP/dp.json"
check "dp exit 0" test $? -eq 0
check "dp keys" test "$(json_get "$TMP/dp.json" "all(k in j for k in ('step_ms','exposed_comm_ms','scaling_efficiency'))")" = True
check "dp ranks 8..16384" test "$(json_get "$TMP/dp.json" "[r['ranks'] for r in j['rows']]")" = \
  "[8, 16, 64, 384, 1024, 4096, 16384]"
check "dp step = backward + exposed" test "$(json_get "$TMP/dp.json" \
  "abs(j['step_ms'] - 200 - j['exposed_comm_ms']) < 1e-9")" = True
"$NPUGAP" comm dp --cluster dgx-h100 --ranks 64 --grad-bytes 100M --backward-ms 50 > "$TMP/dp.txt"
check "dp table" grep -q 'efficiency' "$TMP/dp.txt"

# ---- bad input: one line, exit 2 ------------------------------------------
A2=(--cluster atlas800t-a2 --ranks 16)
expect_error "unknown cluster" "unknown cluster 'atlas9000' (valid: atlas800-910, atlas800t-a2" \
  "$NPUGAP" comm --cluster atlas9000 --ranks 8
expect_error "missing cluster" "--cluster: required" "$NPUGAP" comm --ranks 8
expect_error "cluster file missing" "nope.json: cannot open cluster file" "$NPUGAP" comm --cluster ./nope.json --ranks 8
echo '{"name": "x"}' > "$TMP/bad.json"
expect_error "cluster file invalid" "bad.json: family" "$NPUGAP" comm --cluster "$TMP/bad.json" --ranks 8
expect_error "unknown op" "--op 'allreduse': unknown collective (valid: allreduce" "$NPUGAP" comm "${A2[@]}" --op allreduse
expect_error "unknown algo" "unknown algorithm 'fast' (valid: NA, ring, H-D_R" "$NPUGAP" comm "${A2[@]}" --algo 'level0:NA;level1:fast'
expect_error "algo syntax" "is not levelN:ALGO" "$NPUGAP" comm "${A2[@]}" --algo 'ring'
expect_error "algo level0" "level0 accepts only NA" "$NPUGAP" comm "${A2[@]}" --algo 'level0:ring'
expect_error "algo for op" "pairwise applies to alltoall only" "$NPUGAP" comm "${A2[@]}" --algo 'level0:NA;level1:pairwise'
expect_error "ranks not multiple" "--ranks 12: does not fit atlas800t-a2" "$NPUGAP" comm --cluster atlas800t-a2 --ranks 12
expect_error "ranks too many" "--ranks 65536: atlas800t-a2 holds at most 32768" "$NPUGAP" comm --cluster atlas800t-a2 --ranks 65536
expect_error "ranks 910 small" "--ranks 6: inside one atlas800-910 server HCCL allows 1, 2, 4, 8" \
  "$NPUGAP" comm --cluster atlas800-910 --ranks 6
expect_error "ranks one" "--ranks 1: a collective needs at least 2 ranks" "$NPUGAP" comm --cluster atlas800t-a2 --ranks 1
expect_error "ranks zero" "--ranks 0: must be >= 1" "$NPUGAP" comm --cluster atlas800t-a2 --ranks 0
expect_error "bytes zero" "--bytes '0': size must be > 0" "$NPUGAP" comm "${A2[@]}" --bytes 0
expect_error "bytes garbage" "--bytes 'lots': cannot parse a size" "$NPUGAP" comm "${A2[@]}" --bytes lots
expect_error "bytes unit" "unknown unit 'Q'" "$NPUGAP" comm "${A2[@]}" --bytes 8Q
expect_error "bytes range" "max is below min" "$NPUGAP" comm "${A2[@]}" --bytes 8M:1M
expect_error "bytes factor" "factor 'x1' must be xN with N > 1" "$NPUGAP" comm "${A2[@]}" --bytes 1M:8M:x1
expect_error "sim" "--sim 'packet': unknown simulator (valid: analytical, flow)" "$NPUGAP" comm "${A2[@]}" --sim packet
expect_error "qps zero" "--qps 0: HCCL_RDMA_QPS_PER_CONNECTION must be in 1..32" "$NPUGAP" comm "${A2[@]}" --sim flow --qps 0
expect_error "qps too many" "--qps 33: HCCL_RDMA_QPS_PER_CONNECTION must be in 1..32" "$NPUGAP" comm "${A2[@]}" --qps 33
expect_error "qp threshold" "HCCL_MULTI_QP_THRESHOLD must be 1K..8192K" "$NPUGAP" comm "${A2[@]}" --qps 2 --qp-threshold 9000K
# Four QPs per rank pair spread the ECMP collisions of 1,024 NPUs on the shipped fabric: faster.
"$NPUGAP" comm --cluster atlas800t-a2 --ranks 1024 --bytes 256M --sim flow --no-dispatch --json > "$TMP/qp1.json"
"$NPUGAP" comm --cluster atlas800t-a2 --ranks 1024 --bytes 256M --sim flow --no-dispatch --qps 4 --json > "$TMP/qp4.json"
check "qps: more QPs, less time" python3 -c "import json; a=json.load(open('$TMP/qp1.json'))['rows'][0]['time_us']; b=json.load(open('$TMP/qp4.json'))['rows'][0]['time_us']; assert b < 0.9 * a, (a, b)"
expect_error "buffsize" "--buffsize '0': size must be > 0" "$NPUGAP" comm "${A2[@]}" --buffsize 0
expect_error "straggler syntax" "--straggler '3': expected RANK:MS" "$NPUGAP" comm "${A2[@]}" --straggler 3
expect_error "straggler rank" "--straggler 99: rank outside 0..15" "$NPUGAP" comm "${A2[@]}" --straggler 99:5
expect_error "fault level" "level 'nvlink' is not used by 16 ranks (valid: hccs, scale-out)" \
  "$NPUGAP" comm "${A2[@]}" --link-fault 2:nvlink:0.5
expect_error "fault factor" "factor 2 must be in [0, 1]" "$NPUGAP" comm "${A2[@]}" --link-fault 2:hccs:2
expect_error "connect timeout" "HCCL_CONNECT_TIMEOUT 10: must be in [120, 7200]" "$NPUGAP" comm "${A2[@]}" --connect-timeout 10
expect_error "root" "--root 16: outside 0..15" "$NPUGAP" comm "${A2[@]}" --op broadcast --root 16
expect_error "flow too big" "use --sim analytical" "$NPUGAP" comm --cluster atlas800t-a2 --ranks 16384 --op alltoall --bytes 1G --sim flow
expect_error "random stragglers" "--random-stragglers 'many': expected COUNT:MAXMS[:SEED]" \
  "$NPUGAP" comm "${A2[@]}" --random-stragglers many
expect_error "rdma retry" "HCCL_RDMA_RETRY_CNT 9: must be in [1, 7]" "$NPUGAP" comm "${A2[@]}" --rdma-retry 9
expect_error "exec timeout 910" "HCCL_EXEC_TIMEOUT 20000: must be in (0, 17340] s on 910" \
  "$NPUGAP" comm --cluster atlas800-910 --ranks 8 --exec-timeout 20000
expect_error "nics per leaf" "--nics-per-leaf -4: must be >= 1" "$NPUGAP" comm "${A2[@]}" --nics-per-leaf -4
expect_error "oversubscription" "--oversubscription 0.5: must be >= 1" "$NPUGAP" comm "${A2[@]}" --oversubscription 0.5
# MoE dispatch / combine (DeepEP-style, issue 6 items 2 and 7): a drawn routing expanded into an
# all-to-all-v, one mesh step, no HCCL dispatch; the combine returns what the dispatch sent.
MOE=(comm --cluster cloudmatrix384 --ranks 16 --tokens 512 --json)
"$NPUGAP" "${MOE[@]}" --op moe-dispatch > "$TMP/moe_d.json" 2> "$TMP/err"
check "moe dispatch exit 0" test $? -eq 0
"$NPUGAP" "${MOE[@]}" --op moe-combine --dtype bf16 --sim flow > "$TMP/moe_c.json"
check "moe rows keys" json_true "$TMP/moe_d.json" \
  "set(j['rows'][0]) >= {'bytes', 'time_us', 'algbw_gbps', 'busbw_gbps', 'algo', 'deepep_bw_gbps', 'wire_bw_gbps'}"
check "moe: mesh, no dispatch, 16 x 512 x 8 pairs" json_true "$TMP/moe_d.json" \
  "j['rows'][0]['algo'] == 'level0:fullmesh' and j['rows'][0]['dispatch_us'] == 0 and j['rows'][0]['routed_pairs'] == 65536"
check "moe combine: same tokens back, BF16 deepep = wire" python3 -c "
import json; d=json.load(open('$TMP/moe_d.json'))['rows'][0]; c=json.load(open('$TMP/moe_c.json'))['rows'][0]
assert d['rank0_tokens'] == c['rank0_tokens'] and d['token_copies'] == c['token_copies'], (d, c)
assert abs(c['deepep_bw_gbps'] - c['wire_bw_gbps']) < 1e-9 * c['wire_bw_gbps'], c"
"$NPUGAP" "${MOE[@]}" --op moe-dispatch --routing-seed 5 > "$TMP/moe_s5.json"
check "moe: another routing seed, another draw" python3 -c "
import json; a=json.load(open('$TMP/moe_d.json'))['rows'][0]; b=json.load(open('$TMP/moe_s5.json'))['rows'][0]
assert a['rank0_tokens'] != b['rank0_tokens'] or a['token_copies'] != b['token_copies'], (a, b)"
"$NPUGAP" "${MOE[@]}" --op moe-dispatch --no-dedup > "$TMP/moe_nd.json"
check "moe --no-dedup sends every pair" json_true "$TMP/moe_nd.json" "j['rows'][0]['token_copies'] == 65536"
"$NPUGAP" comm --cluster a3 --ranks 8 --op moe-dispatch > "$TMP/moe_table"
check "moe table names the metric" grep -q 'deepep(GB/s)' "$TMP/moe_table"
check "moe table: rank 0 receives tokens" grep -q '^# rank 0 receives [0-9]* tokens in dispatch' "$TMP/moe_table"
"$NPUGAP" comm --cluster a3 --ranks 8 --op moe-dispatch --no-dedup > "$TMP/moe_table_nd"
check "moe table --no-dedup: copies, not tokens" grep -q '^# rank 0 receives [0-9]* token copies (one per expert, --no-dedup) in dispatch' "$TMP/moe_table_nd"
MOE8=(comm --cluster a3 --ranks 8)
expect_error "moe dtype" "--dtype 'fp8': unknown MoE data type (valid: int8, bf16)" "$NPUGAP" "${MOE8[@]}" --op moe-dispatch --dtype fp8
expect_error "moe topk" "--topk 9: more than the 8 experts" "$NPUGAP" "${MOE8[@]}" --op moe-dispatch --experts 8 --topk 9
expect_error "moe experts" "--experts 100: not divisible by --ranks 8" "$NPUGAP" "${MOE8[@]}" --op moe-combine --experts 100
expect_error "moe tokens" "--tokens 0: must be >= 1" "$NPUGAP" "${MOE8[@]}" --op moe-dispatch --tokens 0
expect_error "moe hidden" "--hidden -1: must be >= 1" "$NPUGAP" "${MOE8[@]}" --op moe-dispatch --hidden -1
expect_error "moe topk 0" "--topk 0: must be >= 1" "$NPUGAP" "${MOE8[@]}" --op moe-dispatch --topk 0
expect_error "moe experts 0" "--experts 0: must be >= 1" "$NPUGAP" "${MOE8[@]}" --op moe-combine --experts 0
expect_error "moe one rank" "--ranks 1: MoE dispatch needs at least 2" "$NPUGAP" comm --cluster a3 --ranks 1 --op moe-dispatch
expect_error "moe routing too large" "--tokens 40000000 --topk 8: 8 ranks route more than 256M" \
  "$NPUGAP" "${MOE8[@]}" --op moe-dispatch --tokens 40000000
expect_error "moe with a collective's --bytes" "--bytes: not used by --op moe-dispatch" \
  "$NPUGAP" "${MOE8[@]}" --op moe-dispatch --bytes 8M
expect_error "moe with --algo" "--algo: not used by --op moe-combine" "$NPUGAP" "${MOE8[@]}" --op moe-combine --algo level0:NA
expect_error "a collective with a MoE flag" "--topk: only for --op moe-dispatch / moe-combine, not --op allreduce" \
  "$NPUGAP" "${MOE8[@]}" --op allreduce --topk 4
expect_error "the default collective with --no-dedup" "--no-dedup: only for --op moe-dispatch / moe-combine" \
  "$NPUGAP" "${MOE8[@]}" --no-dedup
expect_error "moe ranks" "--ranks 12: does not fit" "$NPUGAP" comm --cluster a3 --ranks 12 --op moe-dispatch --experts 96
expect_error "unknown op lists moe" "moe-dispatch, moe-combine" "$NPUGAP" comm "${A2[@]}" --op moe
# Backward time from the perf model (issue 6 item 5): the training step of a model file, lowered
# and timed on the target; the same step with that time given by hand must agree.
"$NPUGAP" example simplenet -o "$TMP/dp_net.onnx" --batch 4 > /dev/null
"$NPUGAP" comm dp --cluster atlas800t-a2 --ranks 16 --model "$TMP/dp_net.onnx" --target ascend910b2 --json > "$TMP/dp_perf.json"
check "dp backward from the perf model" json_true "$TMP/dp_perf.json" \
  "j['backward_ms'] > 0 and j['forward_ms'] > 0 and j['compute_source'] == 'perf model on ascend910b2'"
bw=$(json_get "$TMP/dp_perf.json" "repr(j['backward_ms'])")
fw=$(json_get "$TMP/dp_perf.json" "repr(j['forward_ms'])")
"$NPUGAP" comm dp --cluster atlas800t-a2 --ranks 16 --model "$TMP/dp_net.onnx" --backward-ms "$bw" --forward-ms "$fw" --json > "$TMP/dp_given.json"
check "dp perf-model step equals the same times given" python3 -c "
import json; a=json.load(open('$TMP/dp_perf.json')); b=json.load(open('$TMP/dp_given.json'))
assert b['compute_source'] == 'given' and abs(a['step_ms'] - b['step_ms']) <= 1e-9 * a['step_ms'], (a, b)"
"$NPUGAP" perf "$TMP/dp_net.onnx" --target ascend910b2 --train --json > "$TMP/dp_net_perf.json"
check "dp backward is below the perf model's whole step" python3 -c "
import json; d=json.load(open('$TMP/dp_perf.json')); p=json.load(open('$TMP/dp_net_perf.json'))
assert 0 < d['backward_ms'] < p['iteration_ms'], (d['backward_ms'], p['iteration_ms'])"
expect_error "dp grad missing" "--grad-bytes: required" "$NPUGAP" comm dp --cluster atlas800t-a2 --backward-ms 10
expect_error "dp grad zero" "--grad-bytes '0': size must be > 0" "$NPUGAP" comm dp --cluster atlas800t-a2 --grad-bytes 0 --backward-ms 10
expect_error "dp backward" "--backward-ms: required (or --model" "$NPUGAP" comm dp --cluster atlas800t-a2 --grad-bytes 1G
expect_error "dp backward negative" "--backward-ms -5: must be >= 0" "$NPUGAP" comm dp --cluster atlas800t-a2 --grad-bytes 1G --backward-ms -5
expect_error "dp forward negative" "--forward-ms -2: must be >= 0" "$NPUGAP" comm dp --cluster atlas800t-a2 --grad-bytes 1G --backward-ms 5 --forward-ms -2
expect_error "dp unknown target" "nosuchnpu" "$NPUGAP" comm dp --cluster atlas800t-a2 --model "$TMP/dp_net.onnx" --target nosuchnpu
expect_error "dp bucket" "--bucket 'x': cannot parse a size" "$NPUGAP" comm dp --cluster atlas800t-a2 --grad-bytes 1G --backward-ms 5 --bucket x
expect_error "dp ranks" "--ranks 12: does not fit" "$NPUGAP" comm dp --cluster atlas800t-a2 --ranks 12 --grad-bytes 1G --backward-ms 5
expect_error "dp model" "missing.onnx" "$NPUGAP" comm dp --cluster atlas800t-a2 --model "$TMP/missing.onnx" --backward-ms 5

cli_test_end "comm cli"
