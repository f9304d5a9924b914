package dev.zklock.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class or method that needs a Docker engine. Without a reachable engine
 * the test is skipped, unless Docker tests are required: then it fails. They are
 * required when system property {@value DockerTestCondition#REQUIRED_PROPERTY} or
 * environment variable {@value DockerTestCondition#REQUIRED_ENVIRONMENT_VARIABLE} is
 * {@code true}, as in CI, so that a green build never hides skipped Docker tests.
 * <p>
 * On a machine with a {@code /.dockerenv} file Testcontainers also needs
 * {@code TESTCONTAINERS_HOST_OVERRIDE=localhost}, and where no registry can be reached,
 * {@code TESTCONTAINERS_RYUK_DISABLED=true}; both are environment variables.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("docker")
@ExtendWith(DockerTestCondition.class)
public @interface DockerTest {

}
