#!/usr/bin/env bash
# cfn-lint on the packaged templates, the root and every nested stack's it names
# (Metadata.PackagedTemplate, scripts/ci/stack-templates.ts): any error, and any warning not accepted
# below, fails.
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

# The root, then the nested templates beside it.
mapfile -t TEMPLATES < <(node -e '
  const fs = require("node:fs"), path = require("node:path");
  const root = process.argv[1], dir = path.dirname(root);
  console.log(root);
  for (const r of Object.values(JSON.parse(fs.readFileSync(root, "utf8")).Resources))
    if (r.Type === "AWS::CloudFormation::Stack") console.log(path.join(dir, r.Metadata.PackagedTemplate));
' "$TEMPLATE")

echo "cfn-lint $(cfn-lint --version | awk '{print $2}') on ${TEMPLATES[*]} (accepted warnings: ${ACCEPTED[*]})"
# Exit code: non-zero for warnings and errors (informational findings are not run by default).
if cfn-lint --non-zero-exit-code warning --ignore-checks "${ACCEPTED[@]}" -- "${TEMPLATES[@]}"; then
  echo "cfn-lint: no errors, no warnings beyond the accepted ones in ${#TEMPLATES[@]} templates"
else
  echo "cfn-lint: failed (see above)" >&2
  exit 1
fi
