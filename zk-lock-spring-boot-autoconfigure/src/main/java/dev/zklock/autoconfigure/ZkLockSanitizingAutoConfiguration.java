package dev.zklock.autoconfigure;

import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} that masks {@code zk-lock.auth.credentials} and the
 * {@code zk-lock.tls.*-password} properties in Actuator's {@code env} and
 * {@code configprops} endpoints. Spring Boot masks every value by default, but once an
 * application shows values ({@code management.endpoint.env.show-values}) it masks only
 * what a {@link SanitizingFunction} asks for.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass(SanitizingFunction.class)
public final class ZkLockSanitizingAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "zkLockSanitizingFunction")
	SanitizingFunction zkLockSanitizingFunction() {
		return SanitizingFunction.sanitizeValue().ifKeyMatches(ZkLockSecretKeys::isSecret);
	}

}
