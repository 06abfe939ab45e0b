# 40-audit.sh — `stepguard audit` on a real eBPF log: the four P-51
# denials a step leaves are summarised in text, as JSON, and as GitHub
# annotations, and the job summary is appended to, never truncated.
#
# needs: stepguard

# audit-step, -step-fs, -text, -text-paths, -github, -github-count,
# -summary, -summary-appended, -json
vm_plan 9

ALOG=/var/log/sg-audit.json
W=/var/tmp/sga/work
rm -rf /var/tmp/sga "$ALOG" /root/p51-audit /root/.p51-audit /tmp/p51-audit /var/tmp/sga/p51-audit
# (the image has no /var/log: 30-launcher-bpf made it, when it ran first)
mkdir -p "$W" /var/log
export HOME=/root

# bpf-fmod runs on every boot as root; it is the mode of GitHub's runners.
# The step runs in the work dir, so "../p51-audit" is in its parent.
_here=$PWD
cd "$W" || return 0
vm_expect audit-step 0 'refused create' stepguard --filter bpf-fmod --log "$ALOG" \
	--step p51 -w "$W" -- sh -c '
		echo x > "$HOME/p51-audit"; echo x > "$HOME/.p51-audit"
		echo x > /tmp/p51-audit; echo x > ../p51-audit; echo x > control; true'
cd "$_here" || return 0
if [ -f "$W/control" ] && [ ! -e /root/p51-audit ] && [ ! -e /root/.p51-audit ] &&
   [ ! -e /tmp/p51-audit ] && [ ! -e /var/tmp/sga/p51-audit ]; then
	pass audit-step-fs "the four writes were refused, the control landed"
else
	fail audit-step-fs "$(ls -la /root /tmp /var/tmp/sga "$W" 2>&1 | tr '\n' ' ' | head -c 300)"
fi

vm_expect audit-text 0 'p51' stepguard audit "$ALOG"
if grep -q '/root/p51-audit' "$VMTEST_STATE/audit-text.out" &&
   grep -q '/tmp' "$VMTEST_STATE/audit-text.out"; then
	pass audit-text-paths "the summary names the refused paths"
else
	fail audit-text-paths "paths missing: $(head -c 300 "$VMTEST_STATE/audit-text.out" | tr '\n' ' ')"
fi

vm_expect audit-github 0 '::error' stepguard audit --github "$ALOG"
n=$(grep -c '^::error' "$VMTEST_STATE/audit-github.out")
if [ "$n" = 4 ]; then
	pass audit-github-count "four ::error annotations, one per refused write"
else
	fail audit-github-count "$n ::error annotations, expected 4: $(head -c 300 "$VMTEST_STATE/audit-github.out" | tr '\n' ' ')"
fi

echo "# earlier content" > /tmp/summary.md
vm_expect audit-summary 0 '::error' env GITHUB_STEP_SUMMARY=/tmp/summary.md stepguard audit --github "$ALOG"
if head -n 1 /tmp/summary.md | grep -q '^# earlier content' && grep -q '|' /tmp/summary.md &&
   grep -q 'p51' /tmp/summary.md; then
	pass audit-summary-appended "the job summary kept its content and gained the table"
else
	fail audit-summary-appended "summary: $(head -c 300 /tmp/summary.md | tr '\n' ' ')"
fi

vm_expect audit-json 0 '"p51"' stepguard audit --json "$ALOG"
rm -rf /var/tmp/sga /tmp/summary.md
