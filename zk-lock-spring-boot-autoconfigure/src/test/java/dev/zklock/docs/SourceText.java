package dev.zklock.docs;

import java.util.ArrayList;
import java.util.List;

/**
 * The text of a Java or Kotlin source and its code: the same text with comments and the
 * contents of string and character literals turned into spaces. Line breaks are kept, so
 * an offset in the code is on the same line as in the text, and braces and parentheses
 * in the code balance. The span of each Javadoc comment is noted on the way.
 */
final class SourceText {

	private final String text;

	private final String code;

	private final boolean kotlin;

	private final int[] lineStarts;

	private final List<int[]> javadocs = new ArrayList<>();

	SourceText(String text, boolean kotlin) {
		this.text = text;
		this.kotlin = kotlin;
		this.code = blank(text);
		this.lineStarts = lineStarts(text);
	}

	String text() {
		return this.text;
	}

	String code() {
		return this.code;
	}

	/** The start and end offsets of each Javadoc comment, in order. */
	List<int[]> javadocs() {
		return this.javadocs;
	}

	/** The number of lines, a last line without a line break included. */
	int lineCount() {
		return (int) this.text.lines().count();
	}

	/** The line, counted from 1, that the offset is on. */
	int lineOf(int offset) {
		int low = 0;
		int high = this.lineStarts.length - 1;
		while (low < high) {
			int middle = (low + high + 1) >>> 1;
			if (this.lineStarts[middle] <= offset) {
				low = middle;
			}
			else {
				high = middle - 1;
			}
		}
		return low + 1;
	}

	private static int[] lineStarts(String text) {
		List<Integer> starts = new ArrayList<>();
		starts.add(0);
		for (int i = 0; i < text.length(); i++) {
			if (text.charAt(i) == '\n' && i + 1 < text.length()) {
				starts.add(i + 1);
			}
		}
		return starts.stream().mapToInt(Integer::intValue).toArray();
	}

	/**
	 * The text with comments and the contents of literals turned into spaces, noting the
	 * span of every Javadoc comment.
	 */
	private String blank(String source) {
		char[] out = source.toCharArray();
		int i = 0;
		while (i < out.length) {
			if (source.startsWith("//", i)) {
				i = blankUntil(out, i, source.indexOf('\n', i), 0);
			}
			else if (source.startsWith("/*", i)) {
				int end = source.indexOf("*/", i + 2);
				end = (end < 0) ? out.length : end + 2;
				if (source.startsWith("/**", i) && !source.startsWith("/**/", i)) {
					this.javadocs.add(new int[] { i, end });
				}
				i = blankUntil(out, i, end, 0);
			}
			else if (source.startsWith("\"\"\"", i)) {
				i = blankUntil(out, i, endOfLiteral(source, i + 3, "\"\"\""), 3);
			}
			else if (out[i] == '"' || out[i] == '\'') {
				i = blankUntil(out, i, endOfLiteral(source, i + 1, String.valueOf(out[i])), 1);
			}
			else {
				i++;
			}
		}
		return new String(out);
	}

	/** The offset just after the literal's closing delimiter; escapes and Kotlin templates are skipped. */
	private int endOfLiteral(String source, int from, String delimiter) {
		int i = from;
		while (i < source.length()) {
			if (source.charAt(i) == '\\') {
				i += 2;
			}
			else if (this.kotlin && source.startsWith("${", i)) {
				i = endOfTemplate(source, i + 2);
			}
			else if (source.startsWith(delimiter, i)) {
				return i + delimiter.length();
			}
			else if (delimiter.length() == 1 && source.charAt(i) == '\n') {
				// an unclosed literal ends with its line rather than swallow the file
				return i;
			}
			else {
				i++;
			}
		}
		return source.length();
	}

	private static int endOfTemplate(String source, int from) {
		int depth = 1;
		for (int i = from; i < source.length(); i++) {
			char c = source.charAt(i);
			if (c == '{') {
				depth++;
			}
			else if (c == '}' && --depth == 0) {
				return i + 1;
			}
		}
		return source.length();
	}

	/** Blanks {@code [from, end)} but its line breaks and the delimiters at each end. */
	private static int blankUntil(char[] out, int from, int end, int delimiter) {
		int stop = (end < 0) ? out.length : Math.min(end, out.length);
		for (int i = from + delimiter; i < stop - delimiter; i++) {
			if (out[i] != '\n') {
				out[i] = ' ';
			}
		}
		return stop;
	}

}
