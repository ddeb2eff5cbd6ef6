// ===- grammar/Sketch.g4 - The .sketch language grammar -----------------=== //
//
// Combined lexer/parser grammar of the sketch language. It has no embedded
// target-language actions: the C++ parser is generated at build time and
// frontend/AstBuilder.cpp turns the parse tree into tacclc's own AST at once.
// Every alternative a visitor needs to tell apart is labelled (# name).
//
// Statements need no separator (each starts with a keyword); a ';' after a
// statement is allowed. Comments are // to end of line and /* ... */.
//
// ===--------------------------------------------------------------------=== //
grammar Sketch;

module : decl* EOF ;

decl
  : topologyDecl
  | sketchDecl
  ;

// topology NAME { ranks N  link A -> B alpha Q beta Q ... }
topologyDecl : TOPOLOGY name=IDENT LBRACE topologyItem* RBRACE ;

topologyItem
  : RANKS count=INT SEMI?                                           # ranksItem
  | LINK src=INT arrow=(ARROW | BIARROW) dst=INT linkAttr* SEMI?     # linkItem
  ;

linkAttr
  : ALPHA quantity   # alphaAttr
  | BETA quantity    # betaAttr
  ;

// sketch NAME on TOPOLOGY { collective C  chunks K  size Q }
sketchDecl : SKETCH name=IDENT ON topo=IDENT LBRACE sketchItem* RBRACE ;

sketchItem
  : COLLECTIVE kind=IDENT SEMI?   # collectiveItem
  | CHUNKS count=INT SEMI?        # chunksItem
  | SIZE quantity SEMI?           # sizeItem
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

ARROW   : '->' ;
BIARROW : '<->' ;
LBRACE  : '{' ;
RBRACE  : '}' ;
SEMI    : ';' ;
SLASH   : '/' ;

FLOAT : DIGIT+ '.' DIGIT+ EXPONENT? | DIGIT+ EXPONENT ;
INT   : DIGIT+ ;
IDENT : [a-zA-Z_] [a-zA-Z_0-9]* ;

fragment DIGIT    : [0-9] ;
fragment EXPONENT : [eE] [+-]? DIGIT+ ;

LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS            : [ \t\r\n]+ -> skip ;
// Anything else is reported by the lexer's error listener.
