package dev.zklock.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.docs.JavaSource.Field;
import dev.zklock.docs.JavaSource.LoggerName;
import dev.zklock.docs.JavaSource.Method;
import dev.zklock.docs.JavaSource.Type;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules over the main sources of the published modules ({@link SourceTree}) that reward
 * one concept per class; each lists its violations as {@code path:line: what}.
 * <ol>
 * <li>No abstract class with exactly one subclass: one subclass is no family, so the two
 * are one concept split across files.</li>
 * <li>At most one project superclass above any class: behaviour spread over a chain of
 * abstract classes is read in several files at once.</li>
 * <li>No instance field of a top-level class that is neither private nor final: another
 * class that changes it shares the class's state, and so its concept. Records, nested
 * classes and static fields are left out.</li>
 * <li>{@code getLogger(X.class)} and {@code getLog(X.class)} only with X the enclosing
 * top-level class: a class logging under another's name is a piece of that other.</li>
 * <li>A method of at most {@value #MAX_METHOD_LINES} lines and a file of at most
 * {@value #MAX_FILE_LINES}; {@code *Properties.java} files are exempt from the file
 * length, as their length is the Javadoc that becomes configuration metadata.</li>
 * <li>A file over {@value #OVERVIEW_FROM_LINES} lines opens with an overview: the Javadoc
 * of its type, of at least {@value #MIN_OVERVIEW_LINES} lines, saying what it does and in
 * what order.</li>
 * </ol>
 * Kotlin sources are held to the line counts of rule 5 only.
 */
class CohesionRulesTests {

	private static final int MAX_METHOD_LINES = 80;

	private static final int MAX_FILE_LINES = 800;

	private static final int OVERVIEW_FROM_LINES = 400;

	private static final int MIN_OVERVIEW_LINES = 5;

	private static @Nullable SourceTree repository;

	@Test
	void noAbstractClassHasExactlyOneSubclass() throws IOException {
		assertThat(abstractClassesWithOneSubclass(repository())).as("abstract classes with one subclass").isEmpty();
	}

	@Test
	void noClassHasMoreThanOneProjectSuperclass() throws IOException {
		assertThat(deepHierarchies(repository())).as("classes below more than one project superclass").isEmpty();
	}

	@Test
	void everyInstanceFieldOfATopLevelClassIsPrivateOrFinal() throws IOException {
		assertThat(openFields(repository())).as("instance fields neither private nor final").isEmpty();
	}

	@Test
	void everyClassLogsUnderItsOwnName() throws IOException {
		assertThat(borrowedLoggers(repository())).as("loggers named after another class").isEmpty();
	}

	@Test
	void everyMethodHasAtMost80Lines() throws IOException {
		assertThat(longMethods(repository())).as("methods over " + MAX_METHOD_LINES + " lines").isEmpty();
	}

	@Test
	void everyMainSourceFileHasAtMost800Lines() throws IOException {
		assertThat(longFiles(repository())).as("main source files over " + MAX_FILE_LINES + " lines").isEmpty();
	}

	@Test
	void everyFileOver400LinesOpensWithAnOverview() throws IOException {
		assertThat(filesWithoutOverview(repository())).as("long files without an overview").isEmpty();
	}

	@Test
	void findsAnAbstractClassWithOneSubclass(@TempDir Path root) throws IOException {
		write(root, "zk-lock-core/src/main/java/a/Base.java", "package a; public abstract class Base {}");
		write(root, "zk-lock-core/src/main/java/a/Only.java", "package a; class Only extends Base {}");
		// two subclasses, one of them anonymous, in another published module
		write(root, "zk-lock-core/src/main/java/a/Shared.java", "package a; public abstract class Shared<T> {}");
		write(root, "zk-lock-core/src/main/java/a/One.java", "package a; class One extends Shared<String> {}");
		write(root, "zk-lock-test/src/main/java/b/Two.java", """
				package b;
				import a.Shared;
				class Two { Object shared = new Shared<Integer>() { }; }
				""");
		// subclasses outside the published main sources do not count
		write(root, "zk-lock-core/src/main/java/a/Lonely.java", "package a; public abstract class Lonely {}");
		write(root, "zk-lock-core/src/test/java/a/TestOnly.java", "package a; class TestOnly extends Lonely {}");
		write(root, "sample-app/src/main/java/a/SampleOnly.java", "package a; class SampleOnly extends Lonely {}");
		assertThat(abstractClassesWithOneSubclass(SourceTree.of(root))).containsExactly(
				"zk-lock-core/src/main/java/a/Base.java:1: abstract class Base has one subclass, a.Only");
	}

	@Test
	void findsAClassBelowTwoProjectSuperclasses(@TempDir Path root) throws IOException {
		write(root, "zk-lock-core/src/main/java/a/Top.java", "package a; public abstract class Top extends Thread {}");
		write(root, "zk-lock-core/src/main/java/a/Middle.java", "package a; abstract class Middle extends Top {}");
		write(root, "zk-lock-core/src/main/java/a/Bottom.java", """
				package a;

				final class Bottom
						extends Middle {

					// a nested class may extend its outer class, which extends one project class
					static final class Inner extends Bottom.Sibling {
					}

					abstract static class Sibling extends java.util.AbstractList<String> {
					}

				}
				""");
		write(root, "zk-lock-core/src/main/java/a/Direct.java", "package a; class Direct extends a.Top {}");
		assertThat(deepHierarchies(SourceTree.of(root))).containsExactly(
				"zk-lock-core/src/main/java/a/Bottom.java:3: Bottom extends a.Middle extends a.Top");
	}

	@Test
	void findsAnInstanceFieldNeitherPrivateNorFinal(@TempDir Path root) throws IOException {
		write(root, "zk-lock-core/src/main/java/a/Entry.java", """
				package a;

				class Entry {

					static int count;

					private int privateOne;

					final @Deprecated(since = "1") String finalOne = "a;b";

					volatile @Deprecated long open = 1L;

					Runnable task = new Runnable() {
						int insideAnonymous;
						public void run() { }
					};

					int[] table = { 1, 2 };

					abstract static class Nested { int free; abstract void method(); }

					record Point(int x) { static int origin; }

					void method(int parameter) { int local = parameter; }

				}
				""");
		write(root, "zk-lock-core/src/main/java/a/Shape.java", "package a; record Shape(int sides) {}");
		write(root, "zk-lock-core/src/main/java/a/Color.java", "package a; enum Color { RED(1) { }, BLUE(2); int code; Color(int code) { this.code = code; } }");
		write(root, "zk-lock-core/src/main/java/a/Constants.java", "package a; interface Constants { int ONE = 1; }");
		assertThat(openFields(SourceTree.of(root))).containsExactly(
				"zk-lock-core/src/main/java/a/Color.java:1: field code is neither private nor final",
				"zk-lock-core/src/main/java/a/Entry.java:11: field open is neither private nor final",
				"zk-lock-core/src/main/java/a/Entry.java:13: field task is neither private nor final",
				"zk-lock-core/src/main/java/a/Entry.java:18: field table is neither private nor final");
	}

	@Test
	void findsALoggerNamedAfterAnotherClass(@TempDir Path root) throws IOException {
		write(root, "zk-lock-core/src/main/java/a/Worker.java", """
				package a;

				class Worker {

					private static final Logger own = LoggerFactory.getLogger(Worker.class);

					private static final Logger borrowed = LoggerFactory.getLogger(Manager.class);

					private static final Log commons = LogFactory.getLog(a.Worker.class);

					// LoggerFactory.getLogger(Manager.class) in a comment is no logger
					private static final String TEXT = "getLogger(Manager.class)";

					static class Nested {

						private static final Logger nested = LoggerFactory.getLogger(
								Nested.class);

					}

				}
				""");
		assertThat(borrowedLoggers(SourceTree.of(root))).containsExactly(
				"zk-lock-core/src/main/java/a/Worker.java:7: logs as Manager, not as Worker",
				"zk-lock-core/src/main/java/a/Worker.java:16: logs as Nested, not as Worker");
	}

	@Test
	void findsAMethodOver80Lines(@TempDir Path root) throws IOException {
		// with its signature and closing brace, a method of this body has 80 lines
		String body = "\t\tcount++;\n".repeat(MAX_METHOD_LINES - 2);
		write(root, "zk-lock-core/src/main/java/a/Long.java", """
				package a;

				class Long {

					private int count;

					@Override
					public String toString() {
				%s	}

					Long(int a,
							int b) throws java.io.IOException {
				%s		if (a > b) {
						}
					}

					void lambdas() {
						Runnable r = () -> {
				%s		};
					}

					record Span(int from) {

						Span {
				%s		}

					}

				}
				""".formatted(body, body, body, body + "\t\tcount++;\n"));
		write(root, "zk-lock-core/src/main/kotlin/a/Long.kt", "fun <T> String.long(block: () -> T): T {\n%s}\n"
			.formatted("    println(\"${1}\")\n".repeat(MAX_METHOD_LINES - 1)));
		write(root, "zk-lock-core/src/test/java/a/LongTests.java",
				"class LongTests { void test() {\n%s} }".formatted(body.repeat(2)));
		assertThat(longMethods(SourceTree.of(root))).containsExactly(
				"zk-lock-core/src/main/java/a/Long.java:89: Long() has 83 lines",
				"zk-lock-core/src/main/java/a/Long.java:173: lambdas() has 82 lines",
				"zk-lock-core/src/main/java/a/Long.java:258: Span() has 81 lines",
				"zk-lock-core/src/main/kotlin/a/Long.kt:1: long() has 81 lines");
	}

	@Test
	void findsAFileOver800LinesButNotAPropertiesFile(@TempDir Path root) throws IOException {
		write(root, "zk-lock-core/src/main/java/a/Big.java", "//\n".repeat(MAX_FILE_LINES + 1));
		write(root, "zk-lock-core/src/main/java/a/Fits.java", "//\n".repeat(MAX_FILE_LINES));
		write(root, "zk-lock-core/src/main/kotlin/a/Big.kt", "//\n".repeat(MAX_FILE_LINES) + "no line break");
		write(root, "zk-lock-core/src/main/java/a/ZkLockProperties.java", "//\n".repeat(MAX_FILE_LINES * 2));
		write(root, "zk-lock-core/src/test/java/a/BigTests.java", "//\n".repeat(MAX_FILE_LINES * 2));
		write(root, "zk-lock-core/target/generated/src/main/java/a/Big.java", "//\n".repeat(MAX_FILE_LINES * 2));
		write(root, "sample-app/src/main/java/a/Big.java", "//\n".repeat(MAX_FILE_LINES * 2));
		assertThat(longFiles(SourceTree.of(root))).containsExactly("zk-lock-core/src/main/java/a/Big.java: 801 lines",
				"zk-lock-core/src/main/kotlin/a/Big.kt: 801 lines");
	}

	@Test
	void findsALongFileWithoutAnOverview(@TempDir Path root) throws IOException {
		String filler = "\t// line\n".repeat(OVERVIEW_FROM_LINES);
		String overview = "/**\n * What it does,\n * then what,\n * then what,\n * and last,\n * what.\n */\n";
		String shortDoc = "/**\n * What it does.\n */\n";
		write(root, "zk-lock-core/src/main/java/a/Told.java",
				"package a;\n" + overview + "@Deprecated\npublic final class Told {\n" + filler + "}\n");
		write(root, "zk-lock-core/src/main/java/a/Terse.java",
				"package a;\n" + shortDoc + "final class Terse {\n" + filler + "}\n");
		// an overview of the package, not of the type
		write(root, "zk-lock-core/src/main/java/a/Detached.java",
				overview + "package a;\nimport java.util.List;\nfinal class Detached {\n" + filler + "}\n");
		write(root, "zk-lock-core/src/main/java/a/Short.java", "package a;\nfinal class Short {\n}\n");
		assertThat(filesWithoutOverview(SourceTree.of(root))).containsExactly(
				"zk-lock-core/src/main/java/a/Detached.java: 411 lines, overview 0 lines",
				"zk-lock-core/src/main/java/a/Terse.java: 406 lines, overview 1 lines");
	}

	/** Rule 1. */
	static List<String> abstractClassesWithOneSubclass(SourceTree tree) {
		List<String> violations = new ArrayList<>();
		for (JavaSource source : tree.javaSources()) {
			for (Type type : source.types()) {
				if (!type.isClass() || !type.modifiers().contains("abstract")) {
					continue;
				}
				List<String> subclasses = new ArrayList<>();
				for (JavaSource other : tree.javaSources()) {
					for (Type candidate : other.types()) {
						if (type.equals(tree.superclass(candidate))) {
							subclasses.add(candidate.qualifiedName());
						}
					}
					other.anonymousClasses()
						.stream()
						.filter((anonymous) -> type.equals(tree.resolve(anonymous.name(), other)))
						.forEach((anonymous) -> subclasses.add("an anonymous class in " + other.path() + ":" + anonymous.line()));
				}
				if (subclasses.size() == 1) {
					violations.add(at(source, type.line()) + "abstract class " + type.name() + " has one subclass, "
							+ subclasses.get(0));
				}
			}
		}
		return violations;
	}

	/** Rule 2. */
	static List<String> deepHierarchies(SourceTree tree) {
		List<String> violations = new ArrayList<>();
		for (JavaSource source : tree.javaSources()) {
			for (Type type : source.types()) {
				StringBuilder chain = new StringBuilder(type.name());
				int depth = 0;
				// a cycle cannot compile, but the bound keeps a misread one from looping
				for (Type above = tree.superclass(type); above != null && depth < 10; above = tree.superclass(above)) {
					chain.append(" extends ").append(above.qualifiedName());
					depth++;
				}
				if (depth > 1) {
					violations.add(at(source, type.line()) + chain);
				}
			}
		}
		return violations;
	}

	/** Rule 3. */
	static List<String> openFields(SourceTree tree) {
		List<String> violations = new ArrayList<>();
		for (JavaSource source : tree.javaSources()) {
			for (Type type : source.types()) {
				if (!type.topLevel() || !(type.isClass() || type.kind().equals("enum"))) {
					continue;
				}
				for (Field field : source.fields(type)) {
					if (!field.modifiers().contains("static") && !field.modifiers().contains("private")
							&& !field.modifiers().contains("final")) {
						violations.add(at(source, field.line()) + "field " + field.name() + " is neither private nor final");
					}
				}
			}
		}
		return violations;
	}

	/** Rule 4. */
	static List<String> borrowedLoggers(SourceTree tree) {
		List<String> violations = new ArrayList<>();
		for (JavaSource source : tree.javaSources()) {
			for (LoggerName logger : source.loggerNames()) {
				Type enclosing = logger.enclosing();
				if (enclosing != null && !logger.name().equals(enclosing.name())) {
					violations.add(at(source, logger.line()) + "logs as " + logger.name() + ", not as " + enclosing.name());
				}
			}
		}
		return violations;
	}

	/** Rule 5, methods. */
	static List<String> longMethods(SourceTree tree) {
		List<String> violations = new ArrayList<>();
		for (JavaSource source : tree.sources()) {
			for (Method method : source.methods()) {
				if (method.lines() > MAX_METHOD_LINES) {
					violations.add(at(source, method.line()) + method.name() + "() has " + method.lines() + " lines");
				}
			}
		}
		return violations;
	}

	/** Rule 5, files. */
	static List<String> longFiles(SourceTree tree) {
		List<String> violations = new ArrayList<>();
		for (JavaSource source : tree.sources()) {
			if (source.lineCount() > MAX_FILE_LINES && !source.path().endsWith("Properties.java")) {
				violations.add(source.path() + ": " + source.lineCount() + " lines");
			}
		}
		return violations;
	}

	/** Rule 6. */
	static List<String> filesWithoutOverview(SourceTree tree) {
		List<String> violations = new ArrayList<>();
		for (JavaSource source : tree.javaSources()) {
			Type type = source.mainType();
			if (source.lineCount() <= OVERVIEW_FROM_LINES || type == null) {
				continue;
			}
			int overview = source.javadocLines(type);
			if (overview < MIN_OVERVIEW_LINES) {
				violations.add(source.path() + ": " + source.lineCount() + " lines, overview " + overview + " lines");
			}
		}
		return violations;
	}

	/**
	 * The repository's published main sources, read once for all the rules.
	 */
	private static synchronized SourceTree repository() throws IOException {
		if (repository == null) {
			Path root = MarkdownPages.ofRepository().root();
			repository = SourceTree.of(root);
			// an empty list from a wrong root would pass every rule
			assertThat(repository.sources()).as("main sources found in " + root).hasSizeGreaterThan(100);
		}
		return repository;
	}

	private static String at(JavaSource source, int line) {
		return source.path() + ":" + line + ": ";
	}

	private static void write(Path root, String path, String text) throws IOException {
		Path file = root.resolve(path);
		Files.createDirectories(file.getParent());
		Files.writeString(file, text);
	}

}
