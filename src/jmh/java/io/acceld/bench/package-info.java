/** JMH benchmarks; built only with {@code -Pbench}. See BENCHMARKS.md. */
package io.acceld.bench;
