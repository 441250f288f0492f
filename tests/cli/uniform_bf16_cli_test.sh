#!/usr/bin/env bash
# End-to-end checks of `npugap run --precision-mode uniform_bf16`'s PyTorch kernel variants
# (docs/precision.md, "Validation against PyTorch"): a Conv rounds its accumulator and bias to
# bf16 once, also where oneDNN has no bf16 convolution (ONEDNN_MAX_CPU_ISA=AVX2 stands for a CPU
# without AVX-512: the fp32 fallback, which the run then notes), and a GlobalAveragePool rounds its
# sum before dividing.
set -uo pipefail
NPUGAP=${1:?usage: uniform_bf16_cli_test.sh NPUGAP_BINARY}

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cli_test_begin

tiny_onnx_models <<'PYEOF'

# y = Conv(x, W = [1, 1], B = 2^-9) over x[1,2,1,1]
model(f"{out}/conv.onnx", [node("Conv", ["x", "W", "B"], ["y"], "conv")], [value_info("x", FLOAT, [1, 2, 1, 1])],
      [value_info("y", FLOAT, [1, 1, 1, 1])], inits=[float_tensor("W", [1.0, 1.0], [1, 2, 1, 1]), float_tensor("B", [2.0 ** -9])])
model(f"{out}/gap.onnx", [node("GlobalAveragePool", ["x"], ["y"], "gap")], [value_info("x", FLOAT, [1, 1, 1, 3])],
      [value_info("y", FLOAT, [1, 1, 1, 1])])

write_npy(f"{out}/conv_x.npy", [1.0, 2.0 ** -8], [1, 2, 1, 1])
write_npy(f"{out}/gap_x.npy", [0.6015625, 0.06201171875, 1.734375], [1, 1, 1, 3])
PYEOF
check "models written" test -s "$TMP/conv.onnx" -a -s "$TMP/gap.onnx"

y_max() { json_get "$1" "j['outputs'][0]['max']"; }

# 1 + 2^-8 + 2^-9 = 1.005859375 in fp32; bf16 rounds it once, bias included, to 1.0078125.
"$NPUGAP" run "$TMP/conv.onnx" --inputs "$TMP/conv_x.npy" --json > "$TMP/conv_fp32.json"
check "conv fp32" test "$(y_max "$TMP/conv_fp32.json")" = 1.005859375
"$NPUGAP" run "$TMP/conv.onnx" --inputs "$TMP/conv_x.npy" --precision-mode uniform_bf16 --json > "$TMP/conv_bf16.json"
check "conv uniform_bf16 (oneDNN bf16 where the CPU has it)" test "$(y_max "$TMP/conv_bf16.json")" = 1.0078125
ONEDNN_MAX_CPU_ISA=AVX2 "$NPUGAP" run "$TMP/conv.onnx" --inputs "$TMP/conv_x.npy" --precision-mode uniform_bf16 \
  --json > "$TMP/conv_avx2.json"
check "conv uniform_bf16 without oneDNN bf16 runs" test $? -eq 0
check "conv uniform_bf16 without oneDNN bf16: fp32 rounded once" test "$(y_max "$TMP/conv_avx2.json")" = 1.0078125
# ... and the run says that its bits are then not PyTorch's: in JSON, in text, and in `precision`.
check "conv uniform_bf16 without oneDNN bf16: one note" test "$(json_get "$TMP/conv_avx2.json" "len(j['precision']['notes'])")" = 1
check "the note names the fallback" grep -q "oneDNN has no bf16 convolution on this CPU (it needs AVX-512): 1 Conv node ran the fp32 convolution rounded to bf16 once, so its bits are not PyTorch" "$TMP/conv_avx2.json"
ONEDNN_MAX_CPU_ISA=AVX2 "$NPUGAP" run "$TMP/conv.onnx" --inputs "$TMP/conv_x.npy" --precision-mode uniform_bf16 \
  > "$TMP/conv_avx2.txt"
check "text run shows the note" grep -q "^note: oneDNN has no bf16 convolution on this CPU" "$TMP/conv_avx2.txt"
ONEDNN_MAX_CPU_ISA=AVX2 "$NPUGAP" precision "$TMP/conv.onnx" --inputs "$TMP/conv_x.npy" --precision-mode uniform_bf16 \
  --json > "$TMP/conv_avx2_precision.json"
check "precision --json carries the note" test "$(json_get "$TMP/conv_avx2_precision.json" "len(j['notes'])")" = 1
# No oneDNN-bf16 Conv in the plan (force_fp16), no note, whatever the CPU.
ONEDNN_MAX_CPU_ISA=AVX2 "$NPUGAP" run "$TMP/conv.onnx" --inputs "$TMP/conv_x.npy" --precision-mode force_fp16 \
  --json > "$TMP/conv_fp16_avx2.json"
check "force_fp16 without oneDNN bf16: no note" test "$(json_get "$TMP/conv_fp16_avx2.json" "len(j['precision']['notes'])")" = 0

# sum 2.39794921875 -> bf16 2.390625, / 3 -> 0.796875 (PyTorch's bf16 mean); fp32: 0.7993164...
"$NPUGAP" run "$TMP/gap.onnx" --inputs "$TMP/gap_x.npy" --precision-mode uniform_bf16 --json > "$TMP/gap_bf16.json"
check "gap uniform_bf16 rounds the sum first" test "$(y_max "$TMP/gap_bf16.json")" = 0.796875

cli_test_end "uniform_bf16_cli"
