/** Small packaged stacks for the limits check's tests (scripts/ci/check-limits.ts). */
import type { PackagedStack, Resource, StackTemplate, Template } from '../../scripts/ci/stack-templates.js';

export const part = (name: string, template: Template): StackTemplate => ({ name, file: `${name}.json`, template, bytes: JSON.stringify(template).length });

/** `n` functions, each with an HTTP route and integration in a nested stack of routes. */
export function limitsStack(n: number, extraRoutes = 0): PackagedStack {
  const root: Record<string, Resource> = { Api: { Type: 'AWS::ApiGatewayV2::Api', Properties: { ProtocolType: 'HTTP' } } };
  const routes: Record<string, Resource> = {};
  for (let i = 0; i < n; i++) {
    root[`F${i}`] = { Type: 'AWS::Lambda::Function', Properties: { Environment: { Variables: { TABLE: 'state', BUCKET: { Ref: 'Bucket' } } } } };
    routes[`I${i}`] = { Type: 'AWS::ApiGatewayV2::Integration', Properties: { ApiId: { Ref: 'ApiId' } } };
  }
  for (let i = 0; i < n + extraRoutes; i++) routes[`R${i}`] = { Type: 'AWS::ApiGatewayV2::Route', Properties: { ApiId: { Ref: 'ApiId' } } };
  root.Routes = { Type: 'AWS::CloudFormation::Stack', Metadata: { PackagedTemplate: 'Routes.json' }, Properties: { Parameters: { ApiId: { Ref: 'Api' } } } };
  return { root: part('root', { Resources: root }), nested: [part('Routes', { Parameters: { ApiId: { Type: 'String' } }, Resources: routes })] };
}
