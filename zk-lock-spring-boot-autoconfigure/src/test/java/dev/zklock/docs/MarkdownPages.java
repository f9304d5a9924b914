package dev.zklock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The repository's documentation, README.md and docs/*.md, read as the tests of this
 * package need it: fenced code blocks, links, heading anchors and inline code, each
 * with the file and line it came from.
 */
final class MarkdownPages {

	private static final Pattern FENCE = Pattern.compile("^\\s*```(\\S*)\\s*$");

	private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.+?)\\s*#*\\s*$");

	// [text](target) and ![alt](target); the text may hold inline code but no brackets
	private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

	private static final Pattern INLINE_CODE = Pattern.compile("`([^`]+)`");

	private final Path root;

	private MarkdownPages(Path root) {
		this.root = root;
	}

	/**
	 * The pages of the repository this module belongs to. Surefire runs in the module's
	 * directory, so the repository is its parent.
	 * @return the pages
	 */
	static MarkdownPages ofRepository() {
		Path module = Path.of("").toAbsolutePath();
		Path root = module.getParent();
		if (root == null || !Files.isRegularFile(root.resolve("README.md")) || !Files.isDirectory(root.resolve("docs"))) {
			throw new IllegalStateException("No README.md and docs/ above " + module);
		}
		return new MarkdownPages(root);
	}

	Path root() {
		return this.root;
	}

	/**
	 * README.md and every docs/*.md.
	 * @return the pages, README first
	 */
	List<Path> pages() {
		List<Path> pages = new ArrayList<>();
		pages.add(this.root.resolve("README.md"));
		try (Stream<Path> docs = Files.list(this.root.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return pages;
	}

	String name(Path page) {
		return this.root.relativize(page).toString();
	}

	static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The fenced code blocks of a page.
	 * @param page the page
	 * @return its blocks in order
	 */
	static List<CodeBlock> codeBlocks(Path page) {
		List<CodeBlock> blocks = new ArrayList<>();
		List<String> lines = lines(page);
		String language = null;
		int start = 0;
		List<String> body = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			Matcher fence = FENCE.matcher(lines.get(i));
			if (language == null && fence.matches()) {
				language = fence.group(1);
				start = i + 1;
				body = new ArrayList<>();
			}
			else if (language != null && lines.get(i).strip().equals("```")) {
				blocks.add(new CodeBlock(page, start, language, body));
				language = null;
			}
			else if (language != null) {
				body.add(lines.get(i));
			}
		}
		if (language != null) {
			throw new IllegalStateException(page + ":" + start + ": code block is never closed");
		}
		return blocks;
	}

	/**
	 * The lines of a page outside code blocks, with their line numbers; code blocks
	 * become empty lines so that numbers stay right.
	 * @param page the page
	 * @return the prose lines, index = line number - 1
	 */
	static List<String> prose(Path page) {
		List<String> prose = new ArrayList<>();
		boolean inBlock = false;
		for (String line : lines(page)) {
			if (FENCE.matcher(line).matches() || (inBlock && line.strip().equals("```"))) {
				inBlock = !inBlock;
				prose.add("");
			}
			else {
				prose.add(inBlock ? "" : line);
			}
		}
		return prose;
	}

	/**
	 * The anchors GitHub gives a page's headings: lower case, punctuation dropped,
	 * spaces as hyphens, and "-1", "-2" on repeats.
	 * @param page the page
	 * @return its anchors
	 */
	static Set<String> anchors(Path page) {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (String line : prose(page)) {
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				String slug = slug(heading.group(2));
				int repeat = seen.merge(slug, 1, Integer::sum) - 1;
				anchors.add((repeat == 0) ? slug : slug + "-" + repeat);
			}
		}
		return anchors;
	}

	static String slug(String heading) {
		String text = heading.toLowerCase(Locale.ROOT).replace("`", "");
		StringBuilder slug = new StringBuilder();
		text.codePoints().forEach((c) -> {
			if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				slug.appendCodePoint(c);
			}
			else if (c == ' ') {
				slug.append('-');
			}
		});
		return slug.toString();
	}

	/**
	 * The link targets of a page's prose, outside inline code.
	 * @param page the page
	 * @return the links
	 */
	static List<Link> links(Path page) {
		List<Link> links = new ArrayList<>();
		List<String> prose = prose(page);
		for (int i = 0; i < prose.size(); i++) {
			String line = INLINE_CODE.matcher(prose.get(i)).replaceAll("code");
			Matcher link = LINK.matcher(line);
			while (link.find()) {
				links.add(new Link(page, i + 1, link.group(1)));
			}
		}
		return links;
	}

	/**
	 * The inline code spans of a page's prose.
	 * @param page the page
	 * @return the spans, each with its line
	 */
	static List<InlineCode> inlineCode(Path page) {
		List<InlineCode> spans = new ArrayList<>();
		List<String> prose = prose(page);
		for (int i = 0; i < prose.size(); i++) {
			Matcher code = INLINE_CODE.matcher(prose.get(i));
			while (code.find()) {
				spans.add(new InlineCode(page, i + 1, code.group(1)));
			}
		}
		return spans;
	}

	/**
	 * A fenced code block.
	 * @param page the page it is on
	 * @param line the line of its opening fence
	 * @param language what follows the fence, possibly empty
	 * @param lines its content
	 */
	record CodeBlock(Path page, int line, String language, List<String> lines) {

		String where() {
			return page.getFileName() + ":" + line;
		}

	}

	/**
	 * A link in a page's prose.
	 * @param page the page it is on
	 * @param line its line
	 * @param target what it points at
	 */
	record Link(Path page, int line, String target) {

		String where() {
			return page.getFileName() + ":" + line + " (" + target + ")";
		}

	}

	/**
	 * An inline code span in a page's prose.
	 * @param page the page it is on
	 * @param line its line
	 * @param text the code
	 */
	record InlineCode(Path page, int line, String text) {

	}

}
