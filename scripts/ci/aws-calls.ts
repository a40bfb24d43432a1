/**
 * The AWS actions a function's code calls, derived from the TypeScript sources (not from serverless.yml):
 * starting at the handler, every declaration the code references is followed (functions, methods, classes,
 * variables, object literals: whatever a reachable body names), and every AWS SDK request it reaches is an
 * action: `new GetCommand(…)` of lib-dynamodb is dynamodb:GetItem, `new HeadObjectCommand(…)` (also
 * presigned) s3:GetObject, lib-storage's `Upload` s3:PutObject and s3:AbortMultipartUpload,
 * `createPresignedPost` s3:PutObject, and so on (`actionsOf`). A call through an interface or base class
 * reaches the methods of every class that implements or extends it, or fits the interface without
 * saying so (outside test/), so ports resolve to their adapters.
 *
 * Why the sources and not the bundle: a bundle keeps whole classes, so every function that touches the
 * state store would carry all eight DynamoDB commands (socketDisconnect, which only deletes, among them);
 * following references keeps one method's request to the functions that can reach that method.
 *
 * What the function carries bounds it: where the bundle's module list is known (`Entry.modules`), a
 * declaration in a module the bundle left out is not followed. A port reaches the adapters the function
 * has, not every adapter of the project (the engine functions carry no S3 client, so their calls through
 * the file port reach none).
 *
 * What is not the role's: a module whose header says `@aws-credentials user` sends its requests with the
 * user's own keys (user storage: import/s3, export/s3). The derivation checks the claim: every AWS SDK
 * client such a module makes must be given `credentials`.
 */
import path from 'node:path';
import ts from 'typescript';

export interface Entry {
  /** The function's logical id (or name), for the answer's keys. */
  id: string;
  /** `functions/jobs/create.handler`: module path from the project root, then the export. */
  handler: string;
  /**
   * The project's modules in the function's bundle (paths from the project root, from its source map),
   * when known: code in no other module runs there, so no other module is followed.
   */
  modules?: ReadonlySet<string>;
}

export interface Derivation {
  /** Per entry: each action and where (file:line) the first request for it was found. */
  actions: Map<string, Map<string, string>>;
  /** Handlers that could not be resolved, unknown SDK commands, unverified `@aws-credentials user` claims. */
  problems: string[];
}

const USER_CREDENTIALS_TAG = '@aws-credentials user';

const renamed: Record<string, Record<string, string[]>> = {
  // The document client's commands are the table API's (lib-dynamodb marshals and sends those).
  'lib-dynamodb': {
    Get: ['dynamodb:GetItem'],
    Put: ['dynamodb:PutItem'],
    Update: ['dynamodb:UpdateItem'],
    Delete: ['dynamodb:DeleteItem'],
    BatchGet: ['dynamodb:BatchGetItem'],
    BatchWrite: ['dynamodb:BatchWriteItem'],
    Query: ['dynamodb:Query'],
    Scan: ['dynamodb:Scan'],
    TransactGet: ['dynamodb:TransactGetItems'],
    TransactWrite: ['dynamodb:TransactWriteItems'],
  },
  // S3's authorization names (docs: "Actions, resources, and condition keys for Amazon S3").
  'client-s3': {
    HeadObject: ['s3:GetObject'],
    HeadBucket: ['s3:ListBucket'],
    ListObjects: ['s3:ListBucket'],
    ListObjectsV2: ['s3:ListBucket'],
    CopyObject: ['s3:GetObject', 's3:PutObject'],
    UploadPartCopy: ['s3:GetObject', 's3:PutObject'],
    CreateMultipartUpload: ['s3:PutObject'],
    UploadPart: ['s3:PutObject'],
    CompleteMultipartUpload: ['s3:PutObject'],
    DeleteObjects: ['s3:DeleteObject'],
  },
  'client-sqs': {
    SendMessageBatch: ['sqs:SendMessage'],
    DeleteMessageBatch: ['sqs:DeleteMessage'],
    ChangeMessageVisibilityBatch: ['sqs:ChangeMessageVisibility'],
  },
  'client-lambda': { Invoke: ['lambda:InvokeFunction'], InvokeAsync: ['lambda:InvokeFunction'] },
  'client-apigatewaymanagementapi': {
    PostToConnection: ['execute-api:ManageConnections'],
    GetConnection: ['execute-api:ManageConnections'],
    DeleteConnection: ['execute-api:ManageConnections'],
  },
};
/** IAM service prefixes of the clients whose actions are named after their commands. */
const servicePrefix: Record<string, string> = {
  'client-dynamodb': 'dynamodb',
  'client-s3': 's3',
  'client-sqs': 'sqs',
  'client-lambda': 'lambda',
  'client-sns': 'sns',
  'client-secrets-manager': 'secretsmanager',
  'client-ssm': 'ssm',
  'client-kms': 'kms',
  'client-sts': 'sts',
};
/** SDK helpers that send requests or need the signer to hold an action, by package. */
const helpers: Record<string, Record<string, string[]>> = {
  // Single PUT or multipart upload; aborts the multipart upload when a part fails.
  'lib-storage': { Upload: ['s3:PutObject', 's3:AbortMultipartUpload'] },
  // The form is signed with the caller's credentials: S3 accepts it only from a signer allowed to put.
  's3-presigned-post': { createPresignedPost: ['s3:PutObject'] },
};

/** The IAM actions of an SDK export (a command class or a helper), `undefined` for anything else. */
export function actionsOf(pkg: string, name: string): string[] | undefined {
  const helper = helpers[pkg]?.[name];
  if (helper) return helper;
  if (!name.endsWith('Command') || name === 'Command') return undefined;
  const command = name.slice(0, -'Command'.length);
  const mapped = renamed[pkg]?.[command];
  if (mapped) return mapped;
  if (pkg === 'lib-dynamodb' || pkg === 'client-apigatewaymanagementapi') return []; // unknown: reported
  const prefix = servicePrefix[pkg] ?? (pkg.startsWith('client-') ? pkg.slice('client-'.length) : undefined);
  return prefix ? [`${prefix}:${command}`] : undefined;
}

/** `@aws-sdk/<pkg>` of a declaration file, or undefined. */
function sdkPackage(file: string): string | undefined {
  return /node_modules\/@aws-sdk\/([^/]+)\//.exec(file.replace(/\\/g, '/'))?.[1];
}

type Decl = ts.Declaration;

/**
 * A method of an aggregated client (`new S3().getObject(…)`, `DynamoDBDocument#get`): the command of
 * the same name. The clients' own methods (`send`, `destroy`) and static factories are not requests.
 */
function aggregatedMethod(pkg: string, decl: Decl): string[] | undefined {
  if (!(ts.isMethodSignature(decl) || ts.isMethodDeclaration(decl)) || !ts.isIdentifier(decl.name)) return undefined;
  if (ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Static) return undefined; // `DynamoDBDocument.from`
  const owner = decl.parent;
  const ownerName = (ts.isInterfaceDeclaration(owner) || ts.isClassDeclaration(owner)) && owner.name ? owner.name.text : '';
  if (!ownerName || ownerName.endsWith('Client')) return undefined;
  const name = decl.name.text;
  return actionsOf(pkg, `${name.charAt(0).toUpperCase()}${name.slice(1)}Command`);
}

interface NodeInfo {
  edges: ts.Node[];
  actions: Array<[string, string]>;
}

const moduleOf = (handler: string) => handler.slice(0, handler.lastIndexOf('.'));

/** The program of the handlers' modules, read as a graph of references from each handler down to the SDK's commands. */
class CallGraph {
  readonly checker: ts.TypeChecker;
  readonly problems: string[] = [];
  readonly userCredentialFiles = new Set<string>();
  readonly subtypes = new Map<ts.Symbol, ts.ClassLikeDeclaration[]>();
  readonly classes: ts.ClassLikeDeclaration[] = [];
  readonly structural = new Map<ts.Symbol, ts.ClassLikeDeclaration[]>();
  readonly info = new Map<ts.Node, NodeInfo>();
  readonly unknownCommands = new Set<string>();
  readonly importCache = new Map<ts.SourceFile, ts.SourceFile[]>();

  constructor(
    readonly root: string,
    readonly program: ts.Program,
  ) {
    this.checker = program.getTypeChecker();
    this.checkUserCredentialClaims();
    this.collectSubtypes();
  }

  inProject(sf: ts.SourceFile): boolean {
    return !sf.isDeclarationFile && !sf.fileName.includes('/node_modules/');
  }

  rel(file: string): string {
    return path.relative(this.root, file).replace(/\\/g, '/');
  }

  where(node: ts.Node): string {
    const sf = node.getSourceFile();
    return `${this.rel(sf.fileName)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  }

  /** Modules that send with the user's credentials, each claim checked (in the modules some function loads). */
  checkUserCredentialClaims(): void {
    for (const sf of this.program.getSourceFiles()) {
      if (!this.inProject(sf) || !sf.text.includes(USER_CREDENTIALS_TAG)) continue;
      this.userCredentialFiles.add(sf.fileName);
      // A claim is checked where it matters: in the modules some function loads.
      const visit = (node: ts.Node): void => {
        if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && /Client$/.test(node.expression.text)) {
          const decl = this.resolve(node.expression)[0];
          const fromSdk = decl && sdkPackage(decl.getSourceFile().fileName);
          const arg = node.arguments?.[0];
          const given = arg && ts.isObjectLiteralExpression(arg) && arg.properties.some((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'credentials');
          if (fromSdk && !given) this.problems.push(`${this.where(node)}: says ${USER_CREDENTIALS_TAG} but makes ${node.expression.text} without credentials`);
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }

  /** Subtypes: for each class or interface, the classes that implement or extend it (tests' doubles left out). */
  collectSubtypes(): void {
    for (const sf of this.program.getSourceFiles()) {
      if (!this.inProject(sf) || this.rel(sf.fileName).startsWith('test/')) continue;
      const visit = (node: ts.Node): void => {
        if (ts.isClassLike(node)) {
          this.classes.push(node);
          for (const clause of node.heritageClauses ?? []) {
            for (const type of clause.types) {
              const base = this.symbolOf(type.expression);
              if (base) this.subtypes.set(base, [...(this.subtypes.get(base) ?? []), node]);
            }
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }

  /** A class that fits an interface without saying `implements` is one of its adapters too. */
  fitting(symbol: ts.Symbol): ts.ClassLikeDeclaration[] {
    if (!(symbol.flags & ts.SymbolFlags.Interface)) return [];
    let found = this.structural.get(symbol);
    if (!found) {
      const wanted = this.checker.getDeclaredTypeOfSymbol(symbol);
      found = this.classes.filter((c) => {
        const instance = c.name && this.checker.getSymbolAtLocation(c.name);
        return instance && this.checker.isTypeAssignableTo(this.checker.getDeclaredTypeOfSymbol(instance), wanted);
      });
      this.structural.set(symbol, found);
    }
    return found;
  }

  allSubtypes(symbol: ts.Symbol, seen = new Set<ts.Symbol>()): ts.ClassLikeDeclaration[] {
    if (seen.has(symbol)) return [];
    seen.add(symbol);
    const direct = [...new Set([...(this.subtypes.get(symbol) ?? []), ...this.fitting(symbol)])];
    return [...direct, ...direct.flatMap((c) => (c.name ? this.allSubtypes(this.checker.getSymbolAtLocation(c.name)!, seen) : []))];
  }

  symbolOf(node: ts.Node): ts.Symbol | undefined {
    let symbol = this.checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    return symbol;
  }
  /** The declarations a name in a value position refers to (every member of a union for properties). */
  resolve(node: ts.Identifier | ts.PrivateIdentifier): Decl[] {
    const parent = node.parent;
    // `{ name }` names the property and the variable: the variable is what it runs.
    if (ts.isShorthandPropertyAssignment(parent) && parent.name === node) {
      let value = this.checker.getShorthandAssignmentValueSymbol(parent);
      if (value && value.flags & ts.SymbolFlags.Alias) value = this.checker.getAliasedSymbol(value);
      return value?.declarations ?? [];
    }
    const symbol = this.symbolOf(node);
    if (symbol?.declarations?.length) return symbol.declarations;
    if (ts.isPropertyAccessExpression(parent) && parent.name === node) {
      const type = this.checker.getTypeAtLocation(parent.expression);
      const parts = type.isUnion() ? type.types : [type];
      return parts.flatMap((t) => this.checker.getPropertyOfType(this.checker.getApparentType(t), node.text)?.declarations ?? []);
    }
    return [];
  }

  /** What reaching a declaration runs or exposes: the nodes to walk. */
  bodiesOf(decl: Decl): ts.Node[] {
    if (ts.isClassLike(decl)) {
      // Constructing runs the constructor, field initializers, static blocks and the base class's constructor.
      const parts: ts.Node[] = decl.members.filter(
        (m) => ts.isConstructorDeclaration(m) || ts.isClassStaticBlockDeclaration(m) || (ts.isPropertyDeclaration(m) && m.initializer !== undefined),
      );
      for (const clause of decl.heritageClauses ?? []) if (clause.token === ts.SyntaxKind.ExtendsKeyword) parts.push(...clause.types.map((t) => t.expression));
      return parts;
    }
    if (ts.isBindingElement(decl)) {
      let at: ts.Node = decl;
      while (ts.isBindingElement(at) || ts.isObjectBindingPattern(at) || ts.isArrayBindingPattern(at)) at = at.parent;
      return [at];
    }
    if (ts.isMethodSignature(decl) || ts.isPropertySignature(decl) || ts.isMethodDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isGetAccessor(decl)) {
      // A member reached through a type reaches the same member of every class implementing or extending it.
      const container = decl.parent;
      const name = decl.name && (ts.isIdentifier(decl.name) || ts.isPrivateIdentifier(decl.name) || ts.isStringLiteral(decl.name)) ? decl.name.text : undefined;
      const owner = ts.isClassLike(container) || ts.isInterfaceDeclaration(container) ? container.name && this.checker.getSymbolAtLocation(container.name) : undefined;
      const overrides =
        owner && name ? this.allSubtypes(owner).flatMap((c) => c.members.filter((m) => m.name && (ts.isIdentifier(m.name) || ts.isPrivateIdentifier(m.name)) && m.name.text === name)) : [];
      return [decl, ...overrides.map((m) => m as ts.Node)];
    }
    return [decl];
  }

  /** The reference graph, built once per declaration: the declarations a walk of it names, and its requests. */
  infoOf(start: ts.Node): NodeInfo {
    const known = this.info.get(start);
    if (known) return known;
    const out: NodeInfo = { edges: [], actions: [] };
    this.info.set(start, out);
    const sf = start.getSourceFile();
    const userCredentials = this.userCredentialFiles.has(sf.fileName);
    const visit = (node: ts.Node): void => {
      if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return;
      if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isImportDeclaration(node)) return;
      if (node !== start && (ts.isMethodDeclaration(node) || ts.isGetAccessor(node)) && ts.isClassLike(node.parent)) return; // reached by name
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
        for (const decl of this.resolve(node)) {
          const file = decl.getSourceFile();
          const pkg = sdkPackage(file.fileName);
          if (pkg) {
            const actions = actionsOf(pkg, node.text) ?? aggregatedMethod(pkg, decl);
            if (actions?.length === 0) this.unknownCommands.add(`${this.where(node)}: ${node.text} of @aws-sdk/${pkg} has no IAM action in scripts/ci/aws-calls.ts`);
            if (actions && !userCredentials) for (const a of actions) out.actions.push([a, this.where(node)]);
          } else if (this.inProject(file) && decl !== start) {
            out.edges.push(...this.bodiesOf(decl));
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    if (ts.isSourceFile(start)) {
      // A module's top-level code runs when it is imported.
      for (const stmt of start.statements) if (ts.isExpressionStatement(stmt)) visit(stmt);
    } else visit(start);
    // The modules a reached file imports are loaded with it (their top-level code runs).
    out.edges.push(...this.importsOf(sf));
    return out;
  }
  importsOf(sf: ts.SourceFile): ts.SourceFile[] {
    const known = this.importCache.get(sf);
    if (known) return known;
    const found: ts.SourceFile[] = [];
    for (const stmt of sf.statements) {
      if (!(ts.isImportDeclaration(stmt) || ts.isExportDeclaration(stmt)) || !stmt.moduleSpecifier || !ts.isStringLiteral(stmt.moduleSpecifier)) continue;
      if (ts.isImportDeclaration(stmt) && stmt.importClause?.isTypeOnly) continue;
      const target = ts.resolveModuleName(stmt.moduleSpecifier.text, sf.fileName, this.program.getCompilerOptions(), ts.sys).resolvedModule;
      const file = target && this.program.getSourceFile(target.resolvedFileName);
      if (file && this.inProject(file)) found.push(file);
    }
    this.importCache.set(sf, found);
    return found;
  }

  /** The named declarations from the handler down to `node`. */
  pathTo(node: ts.Node, from: Map<ts.Node, ts.Node | undefined>): string[] {
    const names: string[] = [];
    for (let at: ts.Node | undefined = node; at; at = from.get(at)) {
      const name = ts.isSourceFile(at) ? undefined : (at as ts.NamedDeclaration).name;
      if (name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name))) {
        const owner = at.parent && ts.isClassLike(at.parent) && at.parent.name ? `${at.parent.name.text}.` : '';
        names.unshift(`${owner}${name.text}`);
      }
    }
    return names;
  }

  /** The actions a function's handler can reach, each with the path to it; undefined (and a problem) when the handler is not found. */
  actionsOf(entry: Entry): Map<string, string> | undefined {
  const modulePath = moduleOf(entry.handler);
  const exportName = entry.handler.slice(modulePath.length + 1);
  const file = ['.ts', '.mts', '.cts', '.js'].map((ext) => this.program.getSourceFile(path.resolve(this.root, modulePath + ext))).find(Boolean);
  const exported = file && this.checker.getSymbolAtLocation(file) && this.checker.getExportsOfModule(this.checker.getSymbolAtLocation(file)!).find((s) => s.name === exportName);
  const start = exported && (exported.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(exported) : exported).declarations;
  if (!file || !start?.length) {
    this.problems.push(`${entry.id}: handler ${entry.handler} not found in the sources`);
    return undefined;
  }
  // Breadth first, so the path kept for each action (shown when a role lacks it) is a short one.
  const found = new Map<string, string>();
  const from = new Map<ts.Node, ts.Node | undefined>();
  const pending: ts.Node[] = [file, ...start.flatMap((d) => this.bodiesOf(d))];
  for (const node of pending) from.set(node, undefined);
  for (let i = 0; i < pending.length; i++) {
    const node = pending[i]!;
    const { edges, actions: calls } = this.infoOf(node);
    for (const [action, at] of calls) if (!found.has(action)) found.set(action, [...this.pathTo(node, from), at].join(' → '));
    for (const next of edges) {
      if (from.has(next)) continue;
      if (entry.modules && !entry.modules.has(this.rel(next.getSourceFile().fileName))) continue;
      from.set(next, node);
      pending.push(next);
    }
  }
  return found;
  }
}

export function deriveAwsCalls(root: string, entries: Entry[], tsconfig = path.join(root, 'tsconfig.json')): Derivation {
  const parsed = ts.getParsedCommandLineOfConfigFile(tsconfig, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!parsed) throw new Error(`cannot read ${tsconfig}`);
  // The handlers' modules and what they import: nothing else can run in a function.
  const rootNames = entries.flatMap((e) => ['.ts', '.mts', '.cts', '.js'].map((ext) => path.resolve(root, moduleOf(e.handler) + ext)).filter((f) => ts.sys.fileExists(f)));
  const program = ts.createProgram({ rootNames, options: { ...parsed.options, noEmit: true } });
  const graph = new CallGraph(root, program);
  const actions = new Map<string, Map<string, string>>();
  for (const entry of entries) {
    const found = graph.actionsOf(entry);
    if (found) actions.set(entry.id, found);
  }
  const problems = [...graph.problems, ...graph.unknownCommands];
  return { actions, problems };
}
