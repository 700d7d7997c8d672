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
    return new SyntaxErrorMessage(rewrite(original.getMessage()), Diagnostic.SYNTAX_DIAGNOSTIC);
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
      return "expected " + expected(m.group(2)) + " but found " + found(m.group(1));
    }
    m = MISSING.matcher(message);
    if (m.matches()) {
      return tokens(m.group(1)) + " is missing before " + found(m.group(2));
    }
    m = EXTRANEOUS.matcher(message);
    if (m.matches()) {
      return "unexpected " + found(m.group(1)) + "; expected " + expected(m.group(2));
    }
    m = NO_VIABLE.matcher(message);
    if (m.matches()) {
      return "unexpected " + found(m.group(1));
    }
    m = LOOP.matcher(message);
    if (m.matches()) {
      return "unexpected " + found(m.group(1));
    }
    m = CHARACTER.matcher(message);
    if (m.matches()) {
      return "unexpected " + found(m.group(1)) + " (is a closing quote or '*/' missing?)";
    }
    return tokens(message);
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
    return text.replace("RULE_ID", "a name")
        .replace("RULE_INT", "a number")
        .replace("RULE_STRING", "a quoted string")
        .replace("'<EOF>'", "the end of the file")
        .replace("<EOF>", "the end of the file")
        .replace("EOF", "the end of the file");
  }
}
