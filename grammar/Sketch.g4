// ===- grammar/Sketch.g4 - The .sketch language grammar -----------------=== //
//
// Combined lexer/parser grammar of the sketch language. It has no embedded
// target-language actions: the C++ parser is generated at build time and
// frontend/AstBuilder.cpp turns the parse tree into tacclc's own AST at once.
// Every alternative a visitor needs to tell apart is labelled (# name).
//
// Statements need no separator (each starts with a keyword); a ';' after a
// statement is allowed. Comments are // to end of line and /* ... */; they
// go to the hidden channel, where the parser does not see them and the
// formatter (frontend/Format.cpp) finds them.
//
// ===--------------------------------------------------------------------=== //
grammar Sketch;

module : decl* EOF ;

decl
  : importDecl
  | topologyDecl
  | machineDecl
  | sketchDecl
  ;

// import "topologies/ndv2"   (".sketch" may be left out)
importDecl : IMPORT path=STRING SEMI? ;

// A flat topology: numbered ranks and explicit links.
// topology NAME { ranks N  link A -> B alpha Q beta Q ... }
topologyDecl : TOPOLOGY name=IDENT LBRACE topologyItem* RBRACE ;

topologyItem
  : RANKS count=INT SEMI?                                           # ranksItem
  | LINK src=INT arrow=(ARROW | BIARROW) dst=INT linkAttr* SEMI?     # linkItem
  ;

linkAttr
  : ALPHA ASSIGN? quantity SEMI?   # alphaAttr
  | BETA ASSIGN? quantity SEMI?    # betaAttr
  ;

// A parameterised machine: nodes of GPUs, link classes, loops.
// machine ndv2(nodes: int = 1) { gpus per node = 8  class c { ... }  ... }
machineDecl
  : MACHINE name=IDENT (LPAREN (param (COMMA param)*)? RPAREN)?
    LBRACE machineStmt* RBRACE
  ;

param : name=IDENT (COLON type=IDENT)? (ASSIGN value=expr)? ;

machineStmt
  : GPUS PER NODE ASSIGN? value=expr SEMI?                    # gpusPerNodeStmt
  | name=IDENT ASSIGN value=expr SEMI?                        # letStmt
  | CLASS name=IDENT LBRACE classItem* RBRACE                 # classStmt
  | LINK cls=IDENT linkPair (COMMA linkPair)* SEMI?           # classLinkStmt
  | NIC cls=IDENT gpuList? SEMI?                              # nicStmt
  | SWITCH name=IDENT cls=IDENT gpuList SEMI?                 # switchStmt
  | FOR var=IDENT IN range LBRACE machineStmt* RBRACE         # machineForStmt
  ;

// A class's costs, optionally measured at several message sizes:
//   class ib { alpha = 2.6 us; beta = 105 us/MB  at 1 KB { alpha = 2.6 us ... } }
classItem
  : linkAttr                                  # classAttr
  | AT size=quantity LBRACE linkAttr* RBRACE  # profilePoint
  ;

// `a <-> b x2`: two parallel links of the class.
linkPair : endpointPair (mult=IDENT)? ;

// [0, 2, 4 .. 8] or [0:1, 1:1]: GPUs of a NIC or a switch.
gpuList : LBRACKET gpuListElem (COMMA gpuListElem)* RBRACKET ;
gpuListElem : first=address (DOTDOT last=expr)? ;

// `n:g` is GPU g of node n; a single expression is a flat rank number.
endpointPair : src=address arrow=(ARROW | BIARROW) dst=address ;
address
  : node=expr COLON gpu=expr   # nodeGpuAddress
  | rank=expr                  # rankAddress
  ;

range : lo=expr DOTDOT hi=expr ;

expr
  : MINUS operand=expr                                # negExpr
  | lhs=expr op=(STAR | SLASH | PERCENT) rhs=expr     # mulExpr
  | lhs=expr op=(PLUS | MINUS) rhs=expr               # addExpr
  | LPAREN inner=expr RPAREN                          # parenExpr
  | INT                                               # intExpr
  | (IDENT | GPUS)                                    # nameExpr
  ;

// sketch NAME on MACHINE(args) { ... }   or   sketch NAME from BASE { ... }
sketchDecl
  : SKETCH name=IDENT (ON target=machineRef | FROM base=qualifiedName)
    LBRACE sketchItem* RBRACE
  ;

machineRef : name=qualifiedName (LPAREN (arg (COMMA arg)*)? RPAREN)? ;
arg : (name=IDENT COLON)? value=expr ;
qualifiedName : first=IDENT (DOT second=IDENT)? ;

sketchItem
  : COLLECTIVE kind=IDENT (ROOT root=address)? SEMI?           # collectiveItem
  | CHUNKS (count=INT | word=IDENT) SEMI?                      # chunksItem
  | SIZE lo=quantity (DOTDOT hi=quantity)? SEMI?               # sizeItem
  | LINKS IDENT (COMMA IDENT)* SEMI?                           # linksItem
  | RELAY endpointPair (COMMA endpointPair)* SEMI?             # relayItem
  | RELAY EACH endpointPair (COMMA endpointPair)* SEMI?        # relayEachItem
  | RELAY form=(DIRECT | ALL) SEMI?                            # relayFormItem
  | SENDER gpu=expr CARRIES gpuList SEMI?                      # senderItem
  | SENDER FIRST SEMI?                                         # senderFirstItem
  | IDENTICAL RESULTS SEMI?                                    # identicalItem
  | POLICY sw=IDENT value=policyName SEMI?                     # policyItem
  | INSTANCES count=INT SEMI?                                  # instancesItem
  | CONTIGUOUS IDENT (COMMA IDENT)* SEMI?                      # contiguousItem
  | EXCLUDE endpointPair (COMMA endpointPair)* SEMI?           # excludeItem
  | FOR var=IDENT IN range LBRACE sketchItem* RBRACE           # sketchForItem
  | PROTOCOL protocolChoice (COMMA protocolChoice)* SEMI?       # protocolItem
  | PHASES phaseScope (COMMA phaseScope)* SEMI?                # phasesItem
  | TIME LIMIT quantity SEMI?                                  # timeLimitItem
  | GAP number SEMI?                                           # gapItem
  | SYMMETRY symmetry (COMMA symmetry)* SEMI?                  # symmetryItem
  ;

// `LL below 64 KiB`: a protocol for the sizes under a bound; the last
// choice of a list has no bound (it takes every larger size).
protocolChoice : name=IDENT (BELOW bound=quantity)? ;

// `within nodes` or `across nodes`: the links one phase of a phased solve
// may use.
phaseScope : where=(WITHIN | ACROSS) what=IDENT ;

// uc-min, uc-max, free
policyName : first=IDENT (MINUS second=IDENT)? ;

// Symmetries the designer asserts (checked to be automorphisms):
//   rotate gpus by K          GPU g of every node -> GPU (g + K) % gpus
//   rotate nodes by K         node n -> node (n + K) % nodes
//   rotate ranks by K within S   TACCL's [K, S]: r -> (r % S + K) % S + r / S * S
//   map [p0, p1, ...]         rank r -> p_r
//   auto                      the machine's own (ir/Automorphisms.h)
symmetry
  : ROTATE what=(GPUS | RANKS | LINKS | IDENT) BY amount=expr (WITHIN group=expr)?   # rotateSymmetry
  | MAP LBRACKET expr (COMMA expr)* RBRACKET                         # mapSymmetry
  | name=IDENT                                                       # namedSymmetry
  ;

// A number with an optional unit: `0.7 us`, `46 us/MB`, `12.5 GB/s`, `1 MiB`.
quantity : number unit? ;
number : INT | FLOAT ;
unit : num=IDENT (SLASH den=IDENT)? ;

// Keywords (before IDENT so they win).
TOPOLOGY   : 'topology' ;
SKETCH     : 'sketch' ;
ON         : 'on' ;
RANKS      : 'ranks' ;
LINK       : 'link' ;
ALPHA      : 'alpha' ;
BETA       : 'beta' ;
COLLECTIVE : 'collective' ;
CHUNKS     : 'chunks' ;
SIZE       : 'size' ;
IMPORT     : 'import' ;
MACHINE    : 'machine' ;
GPUS       : 'gpus' ;
PER        : 'per' ;
NODE       : 'node' ;
CLASS      : 'class' ;
NIC        : 'nic' ;
FOR        : 'for' ;
IN         : 'in' ;
FROM       : 'from' ;
LINKS      : 'links' ;
RELAY      : 'relay' ;
EXCLUDE    : 'exclude' ;
PROTOCOL   : 'protocol' ;
TIME       : 'time' ;
LIMIT      : 'limit' ;
GAP        : 'gap' ;
SYMMETRY   : 'symmetry' ;
ROTATE     : 'rotate' ;
BY         : 'by' ;
WITHIN     : 'within' ;
MAP        : 'map' ;
AT         : 'at' ;
SWITCH     : 'switch' ;
ROOT       : 'root' ;
EACH       : 'each' ;
DIRECT     : 'direct' ;
ALL        : 'all' ;
SENDER     : 'sender' ;
CARRIES    : 'carries' ;
FIRST      : 'first' ;
IDENTICAL  : 'identical' ;
RESULTS    : 'results' ;
POLICY     : 'policy' ;
INSTANCES  : 'instances' ;
CONTIGUOUS : 'contiguous' ;
BELOW      : 'below' ;
PHASES     : 'phases' ;
ACROSS     : 'across' ;

ARROW   : '->' ;
BIARROW : '<->' ;
LBRACE  : '{' ;
RBRACE  : '}' ;
SEMI    : ';' ;
SLASH   : '/' ;
LPAREN  : '(' ;
LBRACKET : '[' ;
RBRACKET : ']' ;
RPAREN  : ')' ;
COMMA   : ',' ;
COLON   : ':' ;
ASSIGN  : '=' ;
DOTDOT  : '..' ;
DOT     : '.' ;
STAR    : '*' ;
PERCENT : '%' ;
PLUS    : '+' ;
MINUS   : '-' ;

FLOAT : DIGIT+ '.' DIGIT+ EXPONENT? | DIGIT+ EXPONENT ;
INT   : DIGIT+ ;
IDENT : [a-zA-Z_] [a-zA-Z_0-9]* ;
STRING : '"' ~["\r\n]* '"' ;

fragment DIGIT    : [0-9] ;
fragment EXPONENT : [eE] [+-]? DIGIT+ ;

LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
WS            : [ \t\r\n]+ -> skip ;
// Anything else is reported by the lexer's error listener.
