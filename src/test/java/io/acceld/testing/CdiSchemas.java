package io.acceld.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import java.nio.file.Files;
import java.nio.file.Path;

/** The CDI project's spec schema, read from the shared reference (not copied into the repo). */
public final class CdiSchemas {
  private CdiSchemas() {}

  /** The schema; the test is skipped (not passed) where the shared reference is absent. */
  public static JsonSchema schema() {
    Path schema =
        Path.of(System.getProperty("acceld.sharedReference", "../shared/reference"))
            .resolve("cdi-schema/schema.json")
            .toAbsolutePath()
            .normalize();
    assumeTrue(Files.isRegularFile(schema), "the CDI schema is not at " + schema);
    return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7)
        .getSchema(SchemaLocation.of(schema.toUri().toString()));
  }
}
