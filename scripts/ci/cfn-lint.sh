#!/usr/bin/env bash
# cfn-lint on the packaged template: any error, and any warning not accepted below, fails.
#   scripts/ci/cfn-lint.sh [template]   (default .serverless/cloudformation-template-update-stack.json)
# Needs cfn-lint 1.x (`pip install cfn-lint`); CI machines have 1.51.
set -euo pipefail
cd "$(dirname "$0")/../.."
TEMPLATE="${1:-.serverless/cloudformation-template-update-stack.json}"

# Accepted warnings, each with its reason. Nothing else is accepted.
ACCEPTED=(
  # W3005 "dependency already enforced by a GetAtt/Ref": the Serverless Framework writes an explicit
  # DependsOn beside the GetAtt on every function (its IAM role, its log group) and on every event source
  # mapping and HTTP route. Redundant, harmless (CloudFormation orders the same way), and generated, so
  # not ours to remove.
  W3005
)

command -v cfn-lint >/dev/null || { echo "cfn-lint is not installed (pip install cfn-lint)" >&2; exit 2; }
[ -f "$TEMPLATE" ] || { echo "$TEMPLATE not found: run \`npx serverless package\` first" >&2; exit 2; }

echo "cfn-lint $(cfn-lint --version | awk '{print $2}') on $TEMPLATE (accepted warnings: ${ACCEPTED[*]})"
# Exit code: non-zero for warnings and errors (informational findings are not run by default).
if cfn-lint --non-zero-exit-code warning --ignore-checks "${ACCEPTED[@]}" -- "$TEMPLATE"; then
  echo "cfn-lint: no errors, no warnings beyond the accepted ones"
else
  echo "cfn-lint: failed (see above)" >&2
  exit 1
fi
