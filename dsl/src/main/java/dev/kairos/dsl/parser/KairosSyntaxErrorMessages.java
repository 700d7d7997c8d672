package dev.kairos.dsl.parser;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.xtext.diagnostics.Diagnostic;
import org.eclipse.xtext.nodemodel.SyntaxErrorMessage;
import org.eclipse.xtext.parser.antlr.SyntaxErrorMessageProvider;

/**
 * Rewrites ANTLR's parser messages ("mismatched input 'ms' expecting RULE_INT") into sentences a
 * person would write ("expected a number but found 'ms'"). The location stays ANTLR's; only the
 * wording changes, and an unrecognised message keeps its original text with the token names
 * translated.
 */
public class KairosSyntaxErrorMessages extends SyntaxErrorMessageProvider {

  @com.google.inject.Inject private dev.kairos.dsl.services.KairosGrammarAccess grammar;

  private static final Pattern WORD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private static final Pattern MISMATCHED =
      Pattern.compile("mismatched input '(.*)' expecting (.*)", Pattern.DOTALL);
  private static final Pattern MISSING = Pattern.compile("missing (.*) at '(.*)'", Pattern.DOTALL);
  private static final Pattern EXTRANEOUS =
      Pattern.compile("extraneous input '(.*)' expecting (.*)", Pattern.DOTALL);
  private static final Pattern NO_VIABLE =
      Pattern.compile("no viable alternative at input '(.*)'", Pattern.DOTALL);
  private static final Pattern LOOP =
      Pattern.compile(
          "required \\(\\.\\.\\.\\)\\+ loop did not match anything at input '(.*)'",
          Pattern.DOTALL);
  private static final Pattern CHARACTER =
      Pattern.compile("mismatched character '(.*)' expecting (.*)", Pattern.DOTALL);

  @Override
  public SyntaxErrorMessage getSyntaxErrorMessage(IParserErrorContext context) {
    final SyntaxErrorMessage original = super.getSyntaxErrorMessage(context);
    String message = rewrite(original.getMessage());
    final Matcher unexpected = UNEXPECTED.matcher(message);
    if (unexpected.matches() && insideNumber(context.getCurrentNode())) {
      // A number may start with digits or with digits and an exponent; ANTLR then says only
      // "no viable alternative" where the reader needs to hear that a number is missing.
      message = "expected a number but found " + unexpected.group(1);
    }
    final String keyword = offendingKeyword(context);
    if (keyword != null) {
      message +=
          ": '"
              + keyword
              + "' is a keyword of the language and cannot be a name here (of the keywords, only "
              + String.join(", ", keywordsThatMayBeNames())
              + " may be names)";
    }
    return new SyntaxErrorMessage(message, Diagnostic.SYNTAX_DIAGNOSTIC);
  }

  /** The keyword the parser stumbled on, when it is a word a person may have meant as a name. */
  private String offendingKeyword(IParserErrorContext context) {
    final org.antlr.runtime.RecognitionException error = context.getRecognitionException();
    if (error == null || error.token == null || error.token.getText() == null) {
      return null;
    }
    final String text = error.token.getText();
    final boolean keyword =
        WORD.matcher(text).matches()
            && error.token.getType()
                != dev.kairos.dsl.parser.antlr.internal.InternalKairosParser.RULE_ID
            && !keywordsThatMayBeNames().contains(text);
    return keyword ? text : null;
  }

  /** The keywords the grammar lets names be (its ValidID rule), in the grammar's order. */
  private java.util.List<String> keywordsThatMayBeNames() {
    return org.eclipse.xtext.GrammarUtil.containedKeywords(grammar.getValidIDRule()).stream()
        .map(org.eclipse.xtext.Keyword::getValue)
        .toList();
  }

  private static final Pattern UNEXPECTED =
      Pattern.compile("unexpected ('.*'|the end of the file)");

  private static boolean insideNumber(org.eclipse.xtext.nodemodel.INode node) {
    final org.eclipse.emf.ecore.EObject grammar = node == null ? null : node.getGrammarElement();
    final org.eclipse.xtext.AbstractRule rule =
        grammar instanceof org.eclipse.xtext.RuleCall call
            ? call.getRule()
            : grammar instanceof org.eclipse.xtext.AbstractRule r ? r : null;
    return rule != null && rule.getName().equals("Decimal");
  }

  @Override
  public SyntaxErrorMessage getSyntaxErrorMessage(IValueConverterErrorContext context) {
    final String detail = context.getDefaultMessage();
    final String message =
        detail != null && detail.startsWith("Couldn't convert")
            ? "this number is too large (at most 2147483647 here)"
            : detail;
    return new SyntaxErrorMessage(message, Diagnostic.SYNTAX_DIAGNOSTIC);
  }

  /** The person-readable form of one ANTLR message. */
  public static String rewrite(String message) {
    if (message == null) {
      return "syntax error";
    }
    Matcher m = MISMATCHED.matcher(message);
    if (m.matches()) {
      return nonAscii(m.group(1))
          .orElse("expected " + expected(m.group(2)) + " but found " + found(m.group(1)));
    }
    m = MISSING.matcher(message);
    if (m.matches()) {
      return nonAscii(m.group(2))
          .orElse(tokens(m.group(1)) + " is missing before " + found(m.group(2)));
    }
    m = EXTRANEOUS.matcher(message);
    if (m.matches()) {
      return nonAscii(m.group(1))
          .orElse("unexpected " + found(m.group(1)) + "; expected " + expected(m.group(2)));
    }
    m = NO_VIABLE.matcher(message);
    if (m.matches()) {
      return nonAscii(m.group(1)).orElse("unexpected " + found(m.group(1)));
    }
    m = LOOP.matcher(message);
    if (m.matches()) {
      return nonAscii(m.group(1)).orElse("unexpected " + found(m.group(1)));
    }
    m = CHARACTER.matcher(message);
    if (m.matches()) {
      return nonAscii(m.group(1))
          .orElse("unexpected " + found(m.group(1)) + " (is a closing quote or '*/' missing?)");
    }
    return tokens(message);
  }

  /**
   * Names become C++ identifiers, so outside strings and comments a model is ASCII: a letter like
   * 'ö' gets a message that says so instead of "unexpected 'ö'".
   */
  private static java.util.Optional<String> nonAscii(String token) {
    for (int i = 0; i < token.length(); ) {
      final int c = token.codePointAt(i);
      if (c > 0x7e || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) {
        final String shown =
            c == 0xfffd
                ? "a byte that is not UTF-8"
                : String.format(
                    c < 0x20 || c == 0x7f ? "a control character (U+%04X)" : "'%s' (U+%04X)",
                    c < 0x20 || c == 0x7f ? c : new String(Character.toChars(c)),
                    c);
        return java.util.Optional.of(
            shown
                + " is not allowed here: names and keywords are ASCII letters, digits and '_'"
                + " (they become C++ identifiers); other characters belong in strings and"
                + " comments");
      }
      i += Character.charCount(c);
    }
    return java.util.Optional.empty();
  }

  private static String found(String token) {
    if (token.equals("<EOF>")) {
      return "the end of the file";
    }
    return "'" + token.replace("\n", "\\n") + "'";
  }

  private static String expected(String expecting) {
    if (expecting.startsWith("set ") || expecting.isBlank()) {
      return "something else";
    }
    return tokens(expecting);
  }

  private static String tokens(String text) {
    return text.replace("RULE_EXPONENT_NUMBER", "a number")
        .replace("RULE_ID", "a name")
        .replace("RULE_INT", "a number")
        .replace("RULE_STRING", "a quoted string")
        .replace("'<EOF>'", "the end of the file")
        .replace("<EOF>", "the end of the file")
        .replace("EOF", "the end of the file");
  }
}
