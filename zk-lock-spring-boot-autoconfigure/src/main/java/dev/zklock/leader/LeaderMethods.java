package dev.zklock.leader;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

import dev.zklock.FencingToken;
import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.Leader;
import dev.zklock.aop.InvalidLockDeclarationException;
import dev.zklock.aop.SkipValues;
import dev.zklock.core.RoleNames;

/**
 * Finds and checks {@link Leader} methods, and keeps what it found: the role, the
 * skip value and the fencing token parameter. A declaration that cannot work
 * throws an {@link InvalidLockDeclarationException} naming the method.
 */
public final class LeaderMethods {

	private static final @Nullable Class<?> publisherClass = publisherClass();

	private static final boolean coroutinesReactorPresent = ClassUtils
		.isPresent("kotlinx.coroutines.reactor.MonoKt", LeaderMethods.class.getClassLoader())
			&& ClassUtils.isPresent("reactor.core.publisher.Mono", LeaderMethods.class.getClassLoader());

	// a group is one segment of the health endpoint's path
	private static final Pattern HEALTH_GROUP_NAME = Pattern.compile("[^\\s/]+");

	private final Map<Method, Optional<LeaderMethod>> cache = new ConcurrentHashMap<>(64);

	/**
	 * The {@code @Leader} declaration of a method, checked.
	 * @param method the method called
	 * @param targetClass the target class, or {@code null}
	 * @return the declaration, or {@code null} when the method has none
	 * @throws InvalidLockDeclarationException when the declaration cannot work
	 */
	@Nullable LeaderMethod find(Method method, @Nullable Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, (targetClass != null) ? targetClass
				: method.getDeclaringClass());
		Optional<LeaderMethod> found = this.cache.get(specific);
		if (found == null) {
			found = Optional.ofNullable(resolve(specific, (targetClass != null) ? targetClass
					: specific.getDeclaringClass()));
			this.cache.put(specific, found);
		}
		return found.orElse(null);
	}

	/**
	 * Whether any method of the class may be a {@code @Leader} method.
	 * @param targetClass the class
	 * @return whether it may
	 */
	boolean isCandidateClass(Class<?> targetClass) {
		return AnnotationUtils.isCandidateClass(targetClass, Leader.class);
	}

	private static @Nullable LeaderMethod resolve(Method method, Class<?> targetClass) {
		Leader leader = AnnotatedElementUtils.findMergedAnnotation(method, Leader.class);
		if (leader == null) {
			return null;
		}
		String description = describe(method, ClassUtils.getUserClass(targetClass));
		List<String> problems = new ArrayList<>();
		String roleProblem = RoleNames.problem(leader.value());
		if (roleProblem != null) {
			problems.add(roleProblem);
		}
		if (!leader.healthGroup().isEmpty() && !HEALTH_GROUP_NAME.matcher(leader.healthGroup()).matches()) {
			problems.add("its healthGroup '" + leader.healthGroup() + "' is not the name of a health group; name "
					+ "one without white space or '/', as in management.endpoint.health.group.<name>.include");
		}
		if (AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class)
				|| AnnotatedElementUtils.hasAnnotation(ClassUtils.getUserClass(targetClass), DistributedLock.class)) {
			problems.add("it also has @DistributedLock, which @Leader does not combine with; lock inside the "
					+ "method with LockTemplate, or move the locked work to a @DistributedLock method of another bean");
		}
		Supplier<Object> skipValue = skipValue(method, problems);
		int fencingTokenParameter = fencingTokenParameter(method, problems);
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		if (suspending && !coroutinesReactorPresent) {
			problems.add("it is a suspend function, which @Leader runs through kotlinx-coroutines-reactor, as Spring "
					+ "does, but that is not on the class path; add the dependency "
					+ "org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
		}
		if (!problems.isEmpty()) {
			throw new InvalidLockDeclarationException("@Leader(\"" + leader.value() + "\") on " + description
					+ " cannot work: " + String.join("; ", problems));
		}
		return new LeaderMethod(method, description, leader.value(), leader.healthGroup(), skipValue,
				fencingTokenParameter, suspending);
	}

	private static Supplier<Object> skipValue(Method method, List<String> problems) {
		Class<?> returnType = method.getReturnType();
		if (returnType.isPrimitive() && returnType != void.class) {
			problems.add("it returns " + returnType.getName() + ", which cannot express a call skipped on an instance "
					+ "that does not lead; return " + ClassUtils.resolvePrimitiveIfNecessary(returnType).getSimpleName()
					+ " (null when skipped), an Optional, or void");
		}
		else if (!SkipValues.nullFits(method)) {
			problems.add("it is a suspend function whose return type is not nullable, so a call skipped on an "
					+ "instance that does not lead has nothing to return; make the return type nullable (null when "
					+ "skipped) or Unit");
		}
		else if (CompletionStage.class.isAssignableFrom(returnType)
				|| (publisherClass != null && publisherClass.isAssignableFrom(returnType))) {
			problems.add("it returns " + returnType.getSimpleName() + ", whose work would go on outside the "
					+ "leadership; return the result itself, or void");
		}
		return SkipValues.forReturnType(returnType);
	}

	private static int fencingTokenParameter(Method method, List<String> problems) {
		Class<?>[] types = method.getParameterTypes();
		int found = -1;
		for (int i = 0; i < types.length; i++) {
			if (types[i] == FencingToken.class) {
				if (found >= 0) {
					problems.add("it declares more than one FencingToken parameter; keep one");
				}
				found = i;
			}
		}
		return found;
	}

	private static @Nullable Class<?> publisherClass() {
		String name = "org.reactivestreams.Publisher";
		ClassLoader loader = LeaderMethods.class.getClassLoader();
		return ClassUtils.isPresent(name, loader) ? ClassUtils.resolveClassName(name, loader) : null;
	}

	// the declared parameters: without the Continuation of a suspend function
	private static String describe(Method method, Class<?> userClass) {
		int continuation = KotlinDetector.isSuspendingFunction(method) ? 1 : 0;
		return userClass.getName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
			.limit(method.getParameterCount() - continuation)
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
	}

}
