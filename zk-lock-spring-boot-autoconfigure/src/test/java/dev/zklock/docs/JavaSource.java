package dev.zklock.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * One main source file read as {@link CohesionRulesTests} needs it: its types, the
 * instance fields of its top-level classes, its methods and its comments, each with the
 * line it is on.
 * <p>
 * It is a scanner, not a parser: in the {@link SourceText#code() code} braces and
 * parentheses balance, and declarations are found by their shape. Kotlin files are only
 * measured: their functions are the blocks whose heads hold {@code fun}.
 */
final class JavaSource {

	private static final Pattern PACKAGE = Pattern.compile("\\bpackage\\s+([\\w.]+)\\s*;");

	private static final Pattern IMPORT = Pattern.compile("\\bimport\\s+([\\w.]+(?:\\.\\*)?)\\s*;");

	// '.class' and '@interface' are no class declarations; a record needs its components
	private static final Pattern TYPE = Pattern
		.compile("(?<![\\w$.@])(class|interface|enum)\\s+([\\w$]+)|(?<![\\w$.@])(record)\\s+([\\w$]+)(?=\\s*[<(])|@\\s*interface\\s+([\\w$]+)");

	private static final Pattern EXTENDS = Pattern.compile("\\bextends\\s+([\\w$.]+)");

	private static final Pattern ANONYMOUS = Pattern.compile("\\bnew\\s+([\\w$.]+)\\s*(?:<[^;{]*?>)?\\s*\\(");

	private static final Pattern LOGGER = Pattern.compile("\\b(?:getLogger|getLog)\\s*\\(\\s*([\\w$.]+)\\s*\\.\\s*class\\s*\\)");

	private static final Pattern THROWS = Pattern.compile("\\s+throws\\s+[\\w$.,<>?\\s]+$");

	private static final Pattern FUN = Pattern.compile("\\bfun\\b");

	private static final Pattern KOTLIN_FUNCTION = Pattern.compile("^fun\\s+(?:<[^>]*>\\s*)?(?:[\\w$.]+\\.)?([\\w$]+)");

	private static final Pattern KOTLIN_DECLARATION = Pattern.compile("\\b(?:class|object|interface|val|var|typealias)\\b");

	private static final Pattern IDENTIFIER_AT_END = Pattern.compile("([\\w$]+)\\s*$");

	private static final Pattern COMPACT_CONSTRUCTOR = Pattern.compile("(?:(?:public|protected|private)\\s+)?([\\w$]+)");

	// words that put parentheses before a block without declaring a method
	private static final Set<String> STATEMENTS = Set.of("if", "for", "while", "switch", "catch", "synchronized", "try");

	private static final Set<String> MODIFIERS = Set.of("public", "protected", "private", "static", "final", "abstract",
			"sealed", "non-sealed", "strictfp", "transient", "volatile", "default");

	private final String path;

	private final SourceText text;

	private final String code;

	private final boolean kotlin;

	private final String packageName;

	private final List<String> imports = new ArrayList<>();

	private final List<Type> types = new ArrayList<>();

	JavaSource(String path, String text) {
		this.path = path;
		this.kotlin = path.endsWith(".kt");
		this.text = new SourceText(text, this.kotlin);
		this.code = this.text.code();
		Matcher pkg = PACKAGE.matcher(this.code);
		this.packageName = (!this.kotlin && pkg.find()) ? pkg.group(1) : "";
		if (!this.kotlin) {
			Matcher imports = IMPORT.matcher(this.code);
			while (imports.find()) {
				this.imports.add(imports.group(1));
			}
			findTypes();
		}
	}

	/** A type declaration; {@code superclass} is the name after {@code extends}, as written. */
	record Type(String name, String qualifiedName, String kind, Set<String> modifiers, @Nullable String superclass,
			boolean topLevel, int line, int start, int bodyStart, int bodyEnd) {

		boolean isClass() {
			return this.kind.equals("class");
		}

	}

	/** A field of a top-level class, with the modifiers written before it. */
	record Field(String name, int line, Set<String> modifiers) {
	}

	/** A method or constructor with the number of lines from its signature to its closing brace. */
	record Method(String name, int line, int lines) {
	}

	/** A use of a type before {@code .class} in a logger factory call. */
	record LoggerName(String name, int line, @Nullable Type enclosing) {
	}

	/** An anonymous class: {@code new Name(...) { ... }}. */
	record Anonymous(String name, int line) {
	}

	String path() {
		return this.path;
	}

	boolean isKotlin() {
		return this.kotlin;
	}

	String packageName() {
		return this.packageName;
	}

	List<String> imports() {
		return this.imports;
	}

	List<Type> types() {
		return this.types;
	}

	int lineCount() {
		return this.text.lineCount();
	}

	int lineOf(int offset) {
		return this.text.lineOf(offset);
	}

	/**
	 * The innermost type whose body holds the offset.
	 */
	@Nullable Type enclosing(int offset) {
		Type innermost = null;
		for (Type type : this.types) {
			if (type.bodyStart() < offset && offset < type.bodyEnd()
					&& (innermost == null || type.bodyStart() > innermost.bodyStart())) {
				innermost = type;
			}
		}
		return innermost;
	}

	/**
	 * The top-level type whose body holds the offset.
	 */
	@Nullable Type topLevel(int offset) {
		for (Type type : this.types) {
			if (type.topLevel() && type.bodyStart() < offset && offset < type.bodyEnd()) {
				return type;
			}
		}
		return null;
	}

	/**
	 * The type the file is named after, or else its first top-level type.
	 */
	@Nullable Type mainType() {
		String fileName = this.path.substring(this.path.lastIndexOf('/') + 1).replaceFirst("\\.java$", "");
		Type first = null;
		for (Type type : this.types) {
			if (type.topLevel() && type.name().equals(fileName)) {
				return type;
			}
			if (type.topLevel() && first == null) {
				first = type;
			}
		}
		return first;
	}

	/**
	 * The instance and static fields declared directly in the body of a class or enum:
	 * every member that ends with {@code ;} and has no parameter list before its
	 * initializer.
	 */
	List<Field> fields(Type type) {
		List<Field> fields = new ArrayList<>();
		int start = type.bodyStart() + 1;
		if (type.kind().equals("enum")) {
			// the constants come first and end at the first ';'
			start = next(';', start, type.bodyEnd()) + 1;
		}
		int head = start;
		for (int i = start; i < type.bodyEnd(); i++) {
			char c = this.code.charAt(i);
			if (c == '(') {
				i = close(i);
			}
			else if (c == '{') {
				boolean initializer = withoutBrackets(this.code.substring(head, i)).contains("=");
				i = close(i);
				if (!initializer) {
					// a method, constructor, nested type or initializer block ends here
					head = i + 1;
				}
			}
			else if (c == ';') {
				field(head, i).ifPresent(fields::add);
				head = i + 1;
			}
		}
		return fields;
	}

	private Optional<Field> field(int from, int end) {
		int start = skipAnnotations(from, end);
		String declaration = withoutAnnotations(this.code.substring(start, end));
		int equals = declaration.indexOf('=');
		String left = (equals < 0) ? declaration : declaration.substring(0, equals);
		Matcher name = IDENTIFIER_AT_END.matcher(left);
		// a parameter list before any initializer makes it an abstract or interface method
		if (left.contains("(") || !name.find()) {
			return Optional.empty();
		}
		return Optional.of(new Field(name.group(1), lineOf(start), modifiers(left)));
	}

	/**
	 * Every method and constructor with a body, in classes of any depth; in Kotlin,
	 * every function with a block body.
	 */
	List<Method> methods() {
		List<Method> methods = new ArrayList<>();
		for (int brace = this.code.indexOf('{'); brace >= 0; brace = this.code.indexOf('{', brace + 1)) {
			int from = skipAnnotations(headStart(brace), brace);
			String name = this.kotlin ? kotlinFunction(from, brace) : methodName(from, brace);
			if (name != null) {
				if (this.kotlin) {
					from += lastFun(this.code.substring(from, brace));
				}
				int first = lineOf(from);
				methods.add(new Method(name, first, lineOf(close(brace)) - first + 1));
			}
		}
		return methods;
	}

	/**
	 * Every {@code getLogger(X.class)} and {@code getLog(X.class)}.
	 */
	List<LoggerName> loggerNames() {
		List<LoggerName> names = new ArrayList<>();
		Matcher logger = LOGGER.matcher(this.code);
		while (logger.find()) {
			String name = logger.group(1);
			names.add(new LoggerName(name.substring(name.lastIndexOf('.') + 1), lineOf(logger.start()),
					topLevel(logger.start())));
		}
		return names;
	}

	/**
	 * Every anonymous class, by the name of the type it extends or implements.
	 */
	List<Anonymous> anonymousClasses() {
		List<Anonymous> anonymous = new ArrayList<>();
		Matcher creation = ANONYMOUS.matcher(this.code);
		while (creation.find()) {
			int after = close(creation.end() - 1) + 1;
			while (after < this.code.length() && Character.isWhitespace(this.code.charAt(after))) {
				after++;
			}
			if (after < this.code.length() && this.code.charAt(after) == '{') {
				anonymous.add(new Anonymous(creation.group(1), lineOf(creation.start())));
			}
		}
		return anonymous;
	}

	/**
	 * The number of lines of text in the Javadoc right before the type's declaration,
	 * where only annotations and modifiers may stand between; 0 if there is none.
	 */
	int javadocLines(Type type) {
		int[] last = null;
		for (int[] javadoc : this.text.javadocs()) {
			if (javadoc[0] >= headStart(type.start()) && javadoc[1] <= type.start()) {
				last = javadoc;
			}
		}
		if (last == null) {
			return 0;
		}
		String between = this.code.substring(last[1], type.start());
		if (!modifiers(between).containsAll(words(withoutAnnotations(between)))) {
			return 0;
		}
		return (int) this.text.text().substring(last[0], last[1])
			.lines()
			.map((line) -> line.replaceAll("^\\s*/?\\*+/?|\\*/\\s*$", "").strip())
			.filter((line) -> !line.isEmpty())
			.count();
	}

	private void findTypes() {
		Matcher type = TYPE.matcher(this.code);
		while (type.find()) {
			String kind = (type.group(1) != null) ? type.group(1) : (type.group(3) != null) ? "record" : "annotation";
			String name = (type.group(2) != null) ? type.group(2)
					: (type.group(4) != null) ? type.group(4) : type.group(5);
			int bodyStart = next('{', type.end(), this.code.length());
			if (bodyStart >= this.code.length()) {
				continue;
			}
			String header = withoutGenerics(this.code.substring(type.end(), bodyStart));
			Matcher superclass = EXTENDS.matcher(header);
			boolean extendsClass = kind.equals("class") && superclass.find();
			Type outer = enclosing(type.start());
			String qualifier = (outer != null) ? outer.qualifiedName()
					: this.packageName.isEmpty() ? "" : this.packageName;
			String qualifiedName = qualifier.isEmpty() ? name : qualifier + "." + name;
			this.types.add(new Type(name, qualifiedName, kind, modifiers(this.code.substring(headStart(type.start()), type.start())),
					extendsClass ? superclass.group(1) : null, outer == null, lineOf(type.start()), type.start(), bodyStart,
					close(bodyStart)));
		}
	}

	/**
	 * The name of the method or constructor whose body opens at the brace, or null if
	 * the block is something else: a statement, a lambda, an anonymous class, a type.
	 */
	private @Nullable String methodName(int from, int brace) {
		String head = this.code.substring(from, brace).strip();
		Type type = enclosing(brace);
		if (type == null) {
			return null;
		}
		Matcher compact = COMPACT_CONSTRUCTOR.matcher(head);
		if (type.kind().equals("record") && compact.matches() && compact.group(1).equals(type.name())) {
			return type.name();
		}
		head = THROWS.matcher(head).replaceFirst("");
		if (!head.endsWith(")")) {
			return null;
		}
		String beforeParameters = this.code.substring(from, open(this.code.lastIndexOf(')', brace))).strip();
		Matcher name = IDENTIFIER_AT_END.matcher(beforeParameters);
		if (!name.find() || STATEMENTS.contains(name.group(1))) {
			return null;
		}
		String prefix = withoutGenerics(beforeParameters.substring(0, name.start()));
		if (prefix.matches(".*(\\bnew\\b|\\brecord\\b|\\bclass\\b|\\benum\\b|\\binterface\\b|[=,]|->).*")) {
			return null;
		}
		// no return type nor modifier: a constructor, or else an enum constant's body
		if (prefix.isBlank() && !name.group(1).equals(type.name())) {
			return null;
		}
		return name.group(1);
	}

	/**
	 * The name of the Kotlin function whose block body opens at the brace, or null. In
	 * Kotlin a head may hold earlier declarations too, so only what follows its last
	 * {@code fun} counts, and not when a property or type is declared after it.
	 */
	private @Nullable String kotlinFunction(int from, int brace) {
		String head = this.code.substring(from, brace);
		int fun = lastFun(head);
		if (fun < 0) {
			return null;
		}
		String signature = head.substring(fun);
		Matcher name = KOTLIN_FUNCTION.matcher(signature);
		if (KOTLIN_DECLARATION.matcher(signature).find() || !name.find()) {
			return null;
		}
		return name.group(1);
	}

	private static int lastFun(String head) {
		int last = -1;
		Matcher fun = FUN.matcher(head);
		while (fun.find()) {
			last = fun.start();
		}
		return last;
	}

	/**
	 * Where the declaration or statement that ends at the offset begins: after the
	 * previous {@code ;}, {@code {} or {@code }} outside parentheses.
	 */
	private int headStart(int offset) {
		for (int i = offset - 1; i >= 0; i--) {
			char c = this.code.charAt(i);
			if (c == ')') {
				i = open(i);
			}
			else if (c == ';' || c == '{' || c == '}') {
				return i + 1;
			}
		}
		return 0;
	}

	/**
	 * The first offset at or after {@code from} that is neither white space nor part of
	 * an annotation.
	 */
	private int skipAnnotations(int from, int end) {
		int i = from;
		while (i < end) {
			char c = this.code.charAt(i);
			if (Character.isWhitespace(c)) {
				i++;
			}
			else if (c == '@' && !this.code.startsWith("interface", nonBlank(i + 1))) {
				i = nonBlank(i + 1);
				while (i < end && (Character.isJavaIdentifierPart(this.code.charAt(i)) || this.code.charAt(i) == '.')) {
					i++;
				}
				int after = nonBlank(i);
				if (after < end && this.code.charAt(after) == '(') {
					i = close(after) + 1;
				}
			}
			else {
				return i;
			}
		}
		return end;
	}

	private int nonBlank(int from) {
		int i = from;
		while (i < this.code.length() && Character.isWhitespace(this.code.charAt(i))) {
			i++;
		}
		return i;
	}

	private static Set<String> modifiers(String declaration) {
		Set<String> modifiers = words(withoutAnnotations(declaration));
		modifiers.retainAll(MODIFIERS);
		return modifiers;
	}

	private static Set<String> words(String text) {
		Set<String> words = new TreeSet<>(List.of(text.split("[^\\w$-]+")));
		words.remove("");
		return words;
	}

	/** The offset of the next {@code target} outside parentheses and braces, or {@code end}. */
	private int next(char target, int from, int end) {
		for (int i = from; i < end; i++) {
			char c = this.code.charAt(i);
			if (c == target) {
				return i;
			}
			if (c == '(' || (c == '{' && target != '{')) {
				i = close(i);
			}
		}
		return end;
	}

	/** The offset of the bracket that closes the one at {@code open}. */
	private int close(int open) {
		int depth = 0;
		for (int i = open; i < this.code.length(); i++) {
			char c = this.code.charAt(i);
			if (c == '(' || c == '{' || c == '[') {
				depth++;
			}
			else if ((c == ')' || c == '}' || c == ']') && --depth == 0) {
				return i;
			}
		}
		return this.code.length() - 1;
	}

	/** The offset of the bracket that opens the one closing at {@code close}. */
	private int open(int close) {
		int depth = 0;
		for (int i = close; i >= 0; i--) {
			char c = this.code.charAt(i);
			if (c == ')' || c == '}' || c == ']') {
				depth++;
			}
			else if ((c == '(' || c == '{' || c == '[') && --depth == 0) {
				return i;
			}
		}
		return 0;
	}

	/** The text without annotations and their arguments. */
	private static String withoutAnnotations(String text) {
		StringBuilder kept = new StringBuilder();
		Matcher annotation = Pattern.compile("@\\s*[\\w$.]+\\s*").matcher(text);
		int from = 0;
		while (annotation.find(from)) {
			kept.append(text, from, annotation.start());
			from = annotation.end();
			if (from < text.length() && text.charAt(from) == '(') {
				int depth = 0;
				do {
					char c = text.charAt(from++);
					depth += (c == '(') ? 1 : (c == ')') ? -1 : 0;
				}
				while (depth > 0 && from < text.length());
			}
		}
		return kept.append(text.substring(from)).toString();
	}

	/** The text without what stands inside parentheses, braces and brackets. */
	private static String withoutBrackets(String text) {
		StringBuilder kept = new StringBuilder();
		int depth = 0;
		for (char c : text.toCharArray()) {
			if (c == '(' || c == '{' || c == '[') {
				depth++;
			}
			else if (c == ')' || c == '}' || c == ']') {
				depth--;
			}
			else if (depth == 0) {
				kept.append(c);
			}
		}
		return kept.toString();
	}

	/** The text without type arguments and parameters, which may hold {@code extends} and commas. */
	private static String withoutGenerics(String text) {
		StringBuilder kept = new StringBuilder();
		int depth = 0;
		for (char c : text.toCharArray()) {
			if (c == '<') {
				depth++;
			}
			else if (c == '>' && depth > 0) {
				depth--;
			}
			else if (depth == 0) {
				kept.append(c);
			}
		}
		return kept.toString();
	}

}
